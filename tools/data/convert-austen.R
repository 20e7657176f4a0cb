#!/usr/bin/env Rscript
# Convert the janeaustenr R package (Debian: r-cran-janeaustenr) to one
# paragraph per line.
#
# Usage: Rscript convert-austen.R OUTDIR [MIN_WORDS]
#
# Each novel is a character vector of the Project Gutenberg text, one
# printed line per element; paragraphs are separated by empty elements.
# Writes OUTDIR/docs.txt (one paragraph per line, its lines joined by single
# spaces) and OUTDIR/ids.txt ("Book<TAB>paragraph-number"). Paragraphs are
# numbered 1, 2, ... within each book counting every non-empty paragraph,
# so a number locates the paragraph in the book even though paragraphs
# with fewer than MIN_WORDS (default 10) whitespace-separated words, such
# as titles and chapter headings, are left out. Output is UTF-8.
# Uses base R and janeaustenr only.

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1 || length(args) > 2) {
  stop("usage: convert-austen.R OUTDIR [MIN_WORDS]")
}
outdir <- args[1]
min_words <- if (length(args) == 2) as.integer(args[2]) else 10L
if (is.na(min_words) || min_words < 1) stop("MIN_WORDS must be a positive integer")

# Same order and names as janeaustenr::austen_books().
books <- c(
  "Sense & Sensibility" = "sensesensibility",
  "Pride & Prejudice"   = "prideprejudice",
  "Mansfield Park"      = "mansfieldpark",
  "Emma"                = "emma",
  "Northanger Abbey"    = "northangerabbey",
  "Persuasion"          = "persuasion"
)

suppressPackageStartupMessages(library(janeaustenr))

dir.create(outdir, recursive = TRUE, showWarnings = FALSE)
docs_con <- file(file.path(outdir, "docs.txt"), open = "wb")
ids_con <- file(file.path(outdir, "ids.txt"), open = "wb")

write_lines <- function(x, con) {
  # bytes out exactly as given (already UTF-8), "\n" line ends everywhere
  writeLines(enc2utf8(x), con, sep = "\n", useBytes = TRUE)
}

total <- 0L
for (title in names(books)) {
  text <- get(books[[title]], envir = asNamespace("janeaustenr"))
  text <- enc2utf8(as.character(text))
  text[is.na(text)] <- ""
  # collapse runs of ASCII whitespace (spaces, tabs, CR) to one space
  text <- trimws(gsub("[[:space:]]+", " ", text, perl = TRUE))
  blank <- text == ""
  para <- cumsum(blank)              # paragraph group id per line
  keep <- !blank
  paras <- split(text[keep], para[keep])  # split() orders groups numerically
  paras <- vapply(paras, paste, character(1), collapse = " ")
  names(paras) <- NULL
  words <- lengths(strsplit(paras, " ", fixed = TRUE))
  num <- seq_along(paras)
  sel <- words >= min_words
  write_lines(paras[sel], docs_con)
  write_lines(paste0(title, "\t", num[sel]), ids_con)
  message(sprintf("austen: %-20s %5d paragraphs kept of %5d",
                  title, sum(sel), length(paras)))
  total <- total + sum(sel)
}
close(docs_con)
close(ids_con)
message(sprintf("austen: %d paragraphs with >= %d words", total, min_words))
