# tools/bench/gyre_text.py — gyre's default text tokenisation (apps' data/corpus_io.hpp), for the
# benchmark scripts that hand a peer the same tokens gyre reads: ASCII letters only, lowercased,
# words of at least 2 letters, gyre's default English stop words left out.
import re

STOP_WORDS = frozenset(b"""a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had has have having
he her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not
now of off on once only or other our ours ourselves out over own same she should so some such than that the their
theirs them themselves then there these they this those through to too under until up very was we were what when
where which while who whom why will with would you your yours yourself yourselves""".split())
_WORD = re.compile(rb"[a-z]{2,}")


def tokens(line: bytes) -> list:
    """The words gyre keeps of one document's line (bytes), in order."""
    return [w for w in _WORD.findall(line.lower()) if w not in STOP_WORDS]
