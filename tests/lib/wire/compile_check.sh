#!/bin/sh
# tests/lib/wire/compile_check.sh EXPECT COMPILER ARGS... — runs one compile and checks its outcome.
# EXPECT is `ok` (the compile must succeed) or `fail:TEXT` (it must fail, and its diagnostics must
# name TEXT: a failure for any other reason, a typo say, is not the one the test is about).
expect=$1
shift
out=$("$@" 2>&1)
status=$?
case $expect in
  ok)
    if [ $status -ne 0 ]; then
      printf 'expected to compile, but the compiler failed:\n%s\n' "$out"
      exit 1
    fi ;;
  fail:*)
    text=${expect#fail:}
    if [ $status -eq 0 ]; then
      printf 'expected a compile error naming "%s", but it compiled: %s\n' "$text" "$*"
      exit 1
    fi
    case $out in
      *"$text"*) ;;
      *) printf 'the compile failed, but not with "%s":\n%s\n' "$text" "$out"; exit 1 ;;
    esac ;;
  *) echo "unknown expectation: $expect"; exit 2 ;;
esac
echo "as expected ($expect)"
