# tools/data/convert-modeldata.R — one regression table of R's modeldata package as a raw numeric CSV.
#
# Usage: Rscript tools/data/convert-modeldata.R ames|chicago OUT.csv
#
# Writes OUT.csv: a header row, then one row per sample, every value printed
# with %.17g (exact; tools/data/convert-regression.py reformats them to the
# shortest round-trip form), the response last and named "y". Factors are
# one-hot encoded with one 0/1 column per level that occurs ("Column=Level",
# characters other than [A-Za-z0-9_.-] in the level replaced by "_"); numeric
# columns are kept as they are; columns that are zero in every row are
# dropped. Rows stay in the package's order. Prints one line per dropped or
# derived column on stderr.
#
#   ames     y = log10(Sale_Price); the other 33 numeric columns as they are,
#            the 40 factors one-hot.
#   chicago  y = ridership (thousands of entries at Clark/Lake per day); the 49
#            other numeric columns (14-day lagged ridership of 20 stations,
#            weather, sports schedules); the date becomes 7 day-of-week
#            indicators "dow=Sun" ... "dow=Sat" (the date itself is dropped).

args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 2 || !(args[1] %in% c("ames", "chicago"))) {
  stop("usage: Rscript convert-modeldata.R ames|chicago OUT.csv")
}
name <- args[1]
out <- args[2]

suppressPackageStartupMessages(library(modeldata))
env <- new.env()

note <- function(...) cat(paste("convert-modeldata:", name, ...), "\n", file = stderr(), sep = "")

# one_hot(df): numeric columns kept, factors -> one column per occurring level.
one_hot <- function(df) {
  cols <- list()
  for (col in names(df)) {
    v <- df[[col]]
    if (is.factor(v)) {
      for (lev in levels(v)) {
        ind <- as.numeric(v == lev)
        if (!any(ind != 0)) {
          note("drop unused level", paste0(col, "=", lev))
          next
        }
        cols[[paste0(col, "=", gsub("[^A-Za-z0-9_.-]", "_", lev))]] <- ind
      }
    } else if (is.numeric(v)) {
      cols[[col]] <- as.numeric(v)
    } else {
      stop("column ", col, " has unsupported class ", class(v)[1])
    }
  }
  cols
}

if (name == "ames") {
  data("ames", package = "modeldata", envir = env)
  d <- as.data.frame(env$ames)
  if (anyNA(d)) stop("ames has missing values")
  y <- log10(as.numeric(d$Sale_Price))
  cols <- one_hot(d[setdiff(names(d), "Sale_Price")])
} else {
  data("Chicago", package = "modeldata", envir = env)
  d <- as.data.frame(env$Chicago)
  if (anyNA(d)) stop("Chicago has missing values")
  y <- as.numeric(d$ridership)
  cols <- one_hot(d[setdiff(names(d), c("ridership", "date"))])
  wday <- as.POSIXlt(d$date)$wday # 0 = Sunday, independent of the locale
  days <- c("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")
  for (k in 0:6) cols[[paste0("dow=", days[k + 1])]] <- as.numeric(wday == k)
  note("date -> 7 day-of-week indicators dow=Sun..dow=Sat; date dropped")
}

keep <- vapply(cols, function(v) any(v != 0), logical(1))
for (col in names(cols)[!keep]) note("drop all-zero column", col)
cols <- cols[keep]
if (anyDuplicated(names(cols))) stop("duplicate column names after sanitising")
if (any(names(cols) == "y")) stop("a feature is named y")

n <- length(y)
fmt <- function(v) sprintf("%.17g", v)
lines <- do.call(paste, c(lapply(cols, fmt), list(fmt(y), sep = ",")))
stopifnot(length(lines) == n, all(is.finite(y)))
con <- file(out, open = "wb")
writeLines(paste(c(names(cols), "y"), collapse = ","), con)
writeLines(lines, con)
close(con)
