# tools/bench/lasso_glmnet.R — R's glmnet as the Lasso/elastic-net peer of gyre-lasso.
#
#   Rscript tools/bench/lasso_glmnet.R --data FILE.libsvm --lambda L [--alpha A] [--intercept 0|1]
#           --tols 1e-2,1e-3,... [--path K] [--type covariance|naive] [--coef-out FILE]
#           [--bin FILE.bin] [--no-scale-fix] [--stop-below F] [--budget S] [--warmup 0|1]
#
# Loading: tools/bench/lasso_libsvm_bin.py parses FILE with scikit-learn's load_svmlight_file (so
# X and y are bitwise those lasso_sklearn.py sees) into a binary CSC file (--bin FILE.bin: kept
# there and reused when newer than FILE; else a temporary file); R reads it with readBin into a
# dgCMatrix. Load time goes to stderr and is not part of any figure.
#
# For each thresh in --tols, fits from scratch
#   glmnet(x, y, family = "gaussian", alpha = A', lambda = L', standardize = FALSE,
#          intercept = .., thresh = tol, maxit = 1e5)
# and times only that call (Sys.time, microseconds; gc() runs before each call, untimed, and one
# untimed warm-up fit at the first tol comes first unless --warmup 0: R's first glmnet call on a
# big matrix is 2-3x slower while its heap grows). Prints one JSON line per tol:
#   {"tool":"glmnet","tol":..,"seconds":..,"objective":..,"nnz":..,"n_iter":..}
# n_iter is glmnet's npasses (coordinate sweeps over the active set or all variables). The
# objective is computed here from the returned a0 and beta, as in every peer script:
#   F = 1/(2n)·||y − Xβ − b||² + L·(A·||β||₁ + (1−A)/2·||β||²)   (b = 0 without intercept).
#
# Scaling. glmnet's gaussian solver divides y by s_y (its 1/n standard deviation: about ȳ with
# the intercept, about 0 without) and λ by s_y, solves, and multiplies β back by s_y. For the
# lasso (A = 1) that is exact: the returned β minimises F at λ = L. For A < 1 the ridge term
# comes out divided by s_y: glmnet(lambda = λ, alpha = a) minimises
#   1/(2n)·||y − Xβ − b||² + λ·a·||β||₁ + λ·(1−a)/(2·s_y)·||β||².
# So this script passes L' = L·A + L·(1−A)·s_y and A' = L·A / L' (A' = A, L' = L when A = 1),
# which gives exactly F; --no-scale-fix passes L and A unchanged (to show the difference).
# Checked on diabetes (L = 0.1·λ_max = 56.440435290022464, intercept, glmnet thresh 1e-16 against
# sklearn tol 1e-14): A = 1: 2118.9152009207291 vs 2118.9152009207282; A = 0.5: 2079.6997557299096
# vs 2079.699755729909 (2295.13 without the fix); A = 0.1: 2026.3420162996276 vs
# 2026.3420162996272 (2717.70 without); A = 0.5 without intercept: 2091.077948070103 vs
# 2091.0779480699866.
# --type: glmnet's type.gaussian; default glmnet's own choice ("covariance" below 500 features,
# else "naive").
#
# --path K (default 1): fit the decreasing sequence of K values geometric from λ_max to L (each
# rescaled as above) instead of L alone, time the whole path, report its last solution.
# glmnet.control(fdev = 0, devmax = 1) is set so that a path is never cut short.
# --stop-below F: stop after the first tol whose objective is <= F; --budget S: run no further tol
# once the fits so far took S seconds (as in lasso_sklearn.py).
# --coef-out writes the last fit: "intercept<TAB>b", then "j<TAB>β_j" (1-based) per non-zero.

suppressPackageStartupMessages({
  library(Matrix)
  library(glmnet)
})

argv <- commandArgs(trailingOnly = FALSE)
script_dir <- dirname(normalizePath(sub("^--file=", "", argv[grep("^--file=", argv)][1])))
args <- commandArgs(trailingOnly = TRUE)

die <- function(...) {
  cat("lasso_glmnet:", ..., "\n", file = stderr())
  quit(status = 2)
}

opt <- list(alpha = "1", intercept = "1", path = "1", type = "", maxit = "100000",
            coef_out = "", bin = "", scale_fix = TRUE, stop_below = "", budget = "", warmup = "1")
i <- 1
while (i <= length(args)) {
  a <- args[i]
  key <- switch(a, "--data" = "data", "--lambda" = "lambda", "--alpha" = "alpha",
                "--intercept" = "intercept", "--tols" = "tols", "--path" = "path",
                "--type" = "type", "--maxit" = "maxit", "--coef-out" = "coef_out",
                "--bin" = "bin", "--stop-below" = "stop_below", "--budget" = "budget",
                "--warmup" = "warmup", NA)
  if (a == "--no-scale-fix") {
    opt$scale_fix <- FALSE
    i <- i + 1
    next
  }
  if (a %in% c("-h", "--help")) {
    cat("usage: Rscript lasso_glmnet.R --data FILE.libsvm --lambda L [--alpha A] [--intercept 0|1]",
        "--tols T1,T2,... [--path K] [--type covariance|naive] [--coef-out FILE] [--bin FILE.bin]",
        "[--no-scale-fix] [--stop-below F] [--budget S] [--warmup 0|1]\n")
    quit(status = 0)
  }
  if (is.na(key) || i == length(args)) die("bad or incomplete argument:", a)
  opt[[key]] <- args[i + 1]
  i <- i + 2
}
if (is.null(opt$data) || is.null(opt$lambda) || is.null(opt$tols)) die("need --data, --lambda and --tols")
L <- as.numeric(opt$lambda)
A <- as.numeric(opt$alpha)
intercept <- opt$intercept == "1"
tols <- as.numeric(strsplit(opt$tols, ",")[[1]])
path_k <- as.integer(opt$path)
if (!is.finite(L) || L <= 0 || !is.finite(A) || A <= 0 || A > 1) die("need L > 0 and 0 < A <= 1")
if (anyNA(tols) || length(tols) == 0) die("bad --tols")
if (is.na(path_k) || path_k < 1) die("bad --path")

# ---- load -------------------------------------------------------------------------------
source(file.path(script_dir, "libsvm_bin.R"))
loaded <- read_libsvm_bin(opt$data, opt$bin, script_dir, die, "lasso_glmnet")
x <- loaded$x
y <- loaded$y
n <- loaded$n
p <- loaded$p
rm(loaded)

# ---- glmnet's parameters for F at (L, A) ----------------------------------------------------
ybar <- if (intercept) mean(y) else 0
s_y <- sqrt(mean((y - ybar)^2))
glmnet_params <- function(lam) {
  if (!opt$scale_fix || A == 1) return(list(lambda = lam, alpha = A))
  lg <- lam * A + lam * (1 - A) * s_y
  list(lambda = lg, alpha = lam * A / lg)
}
lams <- L
if (path_k > 1) {
  xty <- as.numeric(crossprod(x, y - ybar)) # x̃ᵀỹ = xᵀ(y − ȳ)
  lam_max <- max(abs(xty)) / (n * A)
  if (lam_max <= L) die("--path: lambda_max", lam_max, "is not above L")
  lams <- exp(seq(log(lam_max), log(L), length.out = path_k))
  lams[path_k] <- L
}
gp <- lapply(lams, glmnet_params)
g_lambda <- vapply(gp, `[[`, 0, "lambda")
g_alpha <- gp[[1]]$alpha # A / (A + (1 − A)·s_y): the same for every λ of a path

objective <- function(beta, b) {
  r <- y - as.numeric(x %*% beta) - b
  sum(r * r) / (2 * n) + L * (A * sum(abs(beta)) + (1 - A) / 2 * sum(beta * beta))
}
num <- function(v) { # shortest of %.15g / %.17g that reads back as v
  if (is.na(v)) return("null")
  s <- sprintf("%.15g", v)
  if (as.numeric(s) == v) s else sprintf("%.17g", v)
}

stop_below <- if (nzchar(opt$stop_below)) as.numeric(opt$stop_below) else -Inf
budget <- if (nzchar(opt$budget)) as.numeric(opt$budget) else Inf
fit_args <- function(tol) {
  a <- list(x = x, y = y, family = "gaussian", alpha = g_alpha, lambda = g_lambda,
            standardize = FALSE, intercept = intercept, thresh = tol, maxit = as.integer(opt$maxit))
  if (nzchar(opt$type)) a$type.gaussian <- opt$type
  a
}

glmnet.control(fdev = 0, devmax = 1)
if (opt$warmup == "1") invisible(do.call(glmnet, fit_args(tols[1])))
last <- NULL
spent <- 0
for (t in seq_along(tols)) {
  tol <- tols[t]
  if (spent >= budget) {
    cat(sprintf("lasso_glmnet: budget %g s used up (%.1f s); tols not run: %s\n", budget, spent,
                paste(sprintf("%g", tols[t:length(tols)]), collapse = ",")), file = stderr())
    break
  }
  call_args <- fit_args(tol)
  gc(FALSE)
  start <- Sys.time()
  fit <- do.call(glmnet, call_args)
  seconds <- as.numeric(difftime(Sys.time(), start, units = "secs"))
  k <- length(fit$lambda)
  if (k != length(g_lambda)) die("glmnet returned", k, "of", length(g_lambda), "lambdas (jerr", fit$jerr, ")")
  beta <- as.numeric(fit$beta[, k])
  b <- if (intercept) as.numeric(fit$a0[k]) else 0
  last <- list(beta = beta, b = b)
  obj <- objective(beta, b)
  cat(sprintf(paste0('{"tool": "glmnet", "tol": %s, "seconds": %s, "objective": %s, "nnz": %d, ',
                     '"n_iter": %d, "jerr": %d, "lambda": %s, "alpha": %s, "glmnet_lambda": %s, ',
                     '"glmnet_alpha": %s, "path": %d, "intercept": %s}\n'),
              num(tol), num(seconds), num(obj), sum(beta != 0), as.integer(fit$npasses),
              as.integer(fit$jerr), num(L), num(A), num(g_lambda[length(g_lambda)]), num(g_alpha),
              length(g_lambda), num(b)))
  flush(stdout())
  spent <- spent + seconds
  if (obj <= stop_below) break
}
glmnet.control(factory = TRUE)

if (nzchar(opt$coef_out) && !is.null(last)) {
  nz <- which(last$beta != 0)
  writeLines(c(sprintf("intercept\t%.17g", last$b), sprintf("%d\t%.17g", nz, last$beta[nz])), opt$coef_out)
}
