# tools/bench/mf_real_lmer.R — the peer for biases: lme4's crossed random effects y ~ 1 + (1|user) + (1|item)
# fitted by REML on a training file, its held-out RMSE on a test file (users and items all in train).
#
#   Rscript tools/bench/mf_real_lmer.R TRAIN TEST
#
# Prints "lmer_rmse X" and "lmer_residual_sd X" (the fitted noise level: no predictor of y from
# (user, item) alone can be expected to do much better on held-out ratings).
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 2) stop("usage: Rscript mf_real_lmer.R TRAIN TEST")
suppressPackageStartupMessages(library(lme4))
cols <- c("u", "i", "r")
tr <- read.delim(args[1], header = FALSE, col.names = cols, colClasses = c("character", "character", "numeric"))
te <- read.delim(args[2], header = FALSE, col.names = cols, colClasses = c("character", "character", "numeric"))
m <- lmer(r ~ 1 + (1 | u) + (1 | i), data = tr)
p <- predict(m, newdata = te)
cat(sprintf("lmer_rmse %.6f\nlmer_residual_sd %.6f\n", sqrt(mean((te$r - p)^2)), sigma(m)))
