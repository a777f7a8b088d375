#!/usr/bin/env python3
# Reference p-values for tests/unit/test_stats.c, computed exactly with
# integers (no floating point until the final division): two-sided
# conditional binomial test of two Poisson rates, "minimum likelihood" rule
# with relative tolerance 1e-7 (as R's binom.test / poisson.test).
# Exposures are integers here so that p0 = t1/(t1+t2) is exact.
# Run once; the values are pasted into test_stats.c.
from math import comb, log10
from fractions import Fraction

def p_exact(k1, t1, k2, t2):
    n = k1 + k2
    w = [comb(n, j) * t1**j * t2**(n - j) for j in range(n + 1)]  # * 1/(t1+t2)^n
    d = w[k1]
    # pmf_j <= pmf_k * (1 + 1e-7)   <=>   w_j * 10^7 <= d * (10^7 + 1)
    s = sum(x for x in w if x * 10**7 <= d * (10**7 + 1))
    f = Fraction(s, (t1 + t2)**n)
    if f >= 1:
        return "1.0"
    # print with 10 significant digits even when far below double range
    e = int(log10(f.numerator) - log10(f.denominator)) - 1
    m = f / Fraction(10)**e if e >= 0 else f * Fraction(10)**(-e)
    while m >= 10:
        m /= 10; e += 1
    while m < 1:
        m *= 10; e -= 1
    return "%.10fe%d" % (float(m), e)

if __name__ == '__main__':
  cases = [(0, 1, 10, 1), (5, 1, 5, 1), (3, 1, 12, 1), (12, 1, 3, 1),
           (10, 2, 30, 3), (100, 1, 150, 1), (7, 4, 2, 1), (1, 1, 0, 1),
           (1000, 1, 1200, 1), (0, 1, 900, 1), (10, 1, 2000, 1),
           (40, 3, 10, 1), (2, 1, 9, 5), (480, 1, 520, 1),
           (10, 1, 400, 1), (50, 1, 300, 1), (30, 7, 95, 3)]
  for c in cases:
    print("\t{ %d, %d, %d, %d, %s }," % (c + (p_exact(*c),)))
