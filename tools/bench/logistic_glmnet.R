# tools/bench/logistic_glmnet.R — R's glmnet (family "binomial") as the sparse logistic regression peer of gyre-lasso --loss logistic.
#
#   Rscript tools/bench/logistic_glmnet.R --data FILE.libsvm --lambda L [--alpha A] [--intercept 0|1]
#           [--thresh T] [--maxit N] [--bin FILE.bin]
#
# Labels: any two distinct values, the smaller is class 0 and the larger class 1 (as gyre's
# binary_labels); more or fewer classes are an error. Fits
#   glmnet(x, y01, family = "binomial", alpha = A, lambda = L, standardize = FALSE,
#          intercept = .., thresh = T, maxit = N)
# (the binomial family does not rescale y, so L and A are passed unchanged) and times only that
# call. Prints one JSON line with the objective computed here from a0 and beta:
#   F = (1/n)·Σ_i [log(1 + e^{m_i}) − y_i·m_i] + L·(A·||β||₁ + (1−A)/2·||β||²),  m = b + Xβ.
# Not run in CI (it needs R with glmnet).

args <- commandArgs(trailingOnly = TRUE)
script_file <- sub("^--file=", "", grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)[1])
source(file.path(dirname(normalizePath(script_file)), "libsvm_bin.R"))  # also loads Matrix
suppressPackageStartupMessages(library(glmnet))

die <- function(...) {
  cat("logistic_glmnet:", ..., "\n", file = stderr())
  quit(status = 2)
}

opt <- list(alpha = "1", intercept = "1", thresh = "1e-14", maxit = "1000000", bin = "")
for (i in seq(1, length(args), by = 2)) {
  key <- switch(args[i], "--data" = "data", "--lambda" = "lambda", "--alpha" = "alpha",
                "--intercept" = "intercept", "--thresh" = "thresh", "--maxit" = "maxit", "--bin" = "bin", NA)
  if (is.na(key) || i == length(args)) die("bad or incomplete argument:", args[i])
  opt[[key]] <- args[i + 1]
}
if (is.null(opt$data) || is.null(opt$lambda)) die("need --data and --lambda")
L <- as.numeric(opt$lambda)
A <- as.numeric(opt$alpha)
intercept <- opt$intercept == "1"
if (!is.finite(L) || L <= 0 || !is.finite(A) || A <= 0 || A > 1) die("need L > 0 and 0 < A <= 1")

loaded <- read_libsvm_bin(opt$data, opt$bin, dirname(normalizePath(script_file)), die, "logistic_glmnet")
x <- loaded$x
n <- loaded$n
classes <- sort(unique(loaded$y))
if (length(classes) != 2) die(opt$data, "has", length(classes), "label values, a binary classifier needs 2")
y <- as.numeric(loaded$y == classes[2])

objective <- function(beta, b) {
  m <- as.numeric(x %*% beta) + b
  loss <- pmax(m, 0) + log1p(exp(-abs(m))) - y * m
  sum(loss) / n + L * (A * sum(abs(beta)) + (1 - A) / 2 * sum(beta * beta))
}

invisible(gc(FALSE))
start <- Sys.time()
fit <- glmnet(x, y, family = "binomial", alpha = A, lambda = L, standardize = FALSE, intercept = intercept,
              thresh = as.numeric(opt$thresh), maxit = as.integer(opt$maxit))
seconds <- as.numeric(difftime(Sys.time(), start, units = "secs"))
beta <- as.numeric(fit$beta[, 1])
b <- if (intercept) as.numeric(fit$a0[1]) else 0
cat(sprintf('{"tool": "glmnet", "objective": %.17g, "seconds": %.6f, "nnz": %d, "intercept": %.17g, "jerr": %d}\n',
            objective(beta, b), seconds, sum(beta != 0), b, as.integer(fit$jerr)))
