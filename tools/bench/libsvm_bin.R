# tools/bench/libsvm_bin.R — a LibSVM file as a dgCMatrix and y, through lasso_libsvm_bin.py (sourced by the glmnet peers).
#
suppressPackageStartupMessages(library(Matrix))

# read_libsvm_bin(data, bin, script_dir, die, who): `bin` kept and reused when newer than `data`
# (an empty `bin`: a temporary file); `die(...)` reports a failure; the load time goes to stderr
# under `who`, never into a timed figure. Returns list(x = dgCMatrix, y, n, p, nnz).
read_libsvm_bin <- function(data, bin, script_dir, die, who) {
  t_load <- Sys.time()
  keep_bin <- nzchar(bin)
  if (!keep_bin) bin <- tempfile(fileext = ".bin")
  if (!keep_bin || !file.exists(bin) || file.mtime(bin) < file.mtime(data)) {
    py <- Sys.getenv("GYRE_PYTHON", "/usr/bin/python3")
    st <- system2(py, c(shQuote(file.path(script_dir, "lasso_libsvm_bin.py")), shQuote(data), shQuote(bin)))
    if (st != 0) die("lasso_libsvm_bin.py failed on", data)
  }
  con <- file(bin, "rb")
  hdr <- readBin(con, "integer", n = 3, size = 8, endian = "little")
  n <- hdr[1]
  p <- hdr[2]
  nnz <- hdr[3]
  colptr <- readBin(con, "integer", n = p + 1, size = 4, endian = "little")
  rowind <- readBin(con, "integer", n = nnz, size = 4, endian = "little")
  vals <- readBin(con, "double", n = nnz, size = 8, endian = "little")
  y <- readBin(con, "double", n = n, size = 8, endian = "little")
  close(con)
  if (!keep_bin) unlink(bin)
  if (length(y) != n || length(vals) != nnz) die(bin, "is truncated")
  x <- new("dgCMatrix", i = rowind, p = colptr, x = vals, Dim = c(as.integer(n), as.integer(p)))
  stopifnot(validObject(x))
  cat(sprintf("%s: loaded %s: %d x %d, %d non-zeros in %.2f s\n", who, data, n, p, nnz,
              as.numeric(difftime(Sys.time(), t_load, units = "secs"))), file = stderr())
  list(x = x, y = y, n = n, p = p, nnz = nnz)
}
