# tools/data/convert-insteval.R — lme4's InstEval (students rating lecturers at ETH Zürich) as
# ratings triples for gyre-mf, split deterministically into train and test.
#
# Usage: Rscript tools/data/convert-insteval.R OUT_DIR [TEST_TENTHS]
#
# Writes OUT_DIR/train.tsv and OUT_DIR/test.tsv, lines "student<TAB>lecturer<TAB>rating": the
# ids are InstEval's own labels of the factors s (student) and d (lecturer), integers; the
# rating is y, an integer 1..5. Rows keep the package's order. A rating (s, d) goes to the test
# set when
#     h = (s * 2654435761 + d * 2246822519) mod 2^32,   floor(h * 10 / 2^32) < TEST_TENTHS
# (default TEST_TENTHS = 1: about 10%; the constants are Knuth's and xxHash's 32-bit primes;
# every product is below 2^53, so the arithmetic is exact in doubles and the split can be
# recomputed in any language), except that a test rating whose student or lecturer has no
# training rating is moved back to train, so that every test id is in the training set.
# Prints "key: value" lines (counts, the moved ratings) on stdout for the SOURCE file.

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1 || length(args) > 2) stop("usage: Rscript convert-insteval.R OUT_DIR [TEST_TENTHS]")
out <- args[1]
tenths <- if (length(args) == 2) as.integer(args[2]) else 1L
if (is.na(tenths) || tenths < 1 || tenths > 9) stop("TEST_TENTHS must be an integer in 1..9")

env <- new.env()
data("InstEval", package = "lme4", envir = env)
d <- env$InstEval
if (anyNA(d[c("s", "d", "y")])) stop("InstEval has missing values")
student <- as.integer(as.character(d$s))
lecturer <- as.integer(as.character(d$d))
rating <- as.integer(d$y)
if (anyNA(student) || anyNA(lecturer)) stop("InstEval's s or d has a label that is not an integer")
if (any(rating < 1 | rating > 5)) stop("InstEval's y is outside 1..5")
if (anyDuplicated(data.frame(student, lecturer))) stop("InstEval rates a (student, lecturer) pair twice")

h <- (student * 2654435761 + lecturer * 2246822519) %% 2^32
test <- floor(h * 10 / 2^32) < tenths
# one pass suffices: moving a rating into train only adds ids to train
orphan <- test & (!(student %in% student[!test]) | !(lecturer %in% lecturer[!test]))
test <- test & !orphan

write_triples <- function(rows, file) {
  con <- file(file, open = "wb")
  writeLines(sprintf("%d\t%d\t%d", student[rows], lecturer[rows], rating[rows]), con)
  close(con)
}
write_triples(!test, file.path(out, "train.tsv"))
write_triples(test, file.path(out, "test.tsv"))

cat("ratings: ", length(rating), "\n",
    "students (users): ", length(unique(student)), "\n",
    "lecturers (items): ", length(unique(lecturer)), "\n",
    "train ratings: ", sum(!test), "\n",
    "test ratings: ", sum(test), "\n",
    "test users: ", length(unique(student[test])), "\n",
    "test items: ", length(unique(lecturer[test])), "\n",
    "moved to train (student or lecturer with no other rating): ", sum(orphan), "\n",
    "ratings 1..5: ", paste(tabulate(rating, 5), collapse = " "), "\n",
    "mean rating: ", sprintf("%.6f", mean(rating)), "\n",
    sep = "")
