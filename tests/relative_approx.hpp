#pragma once
// doctest::Approx compares |a - b| < epsilon x (scale + max(|a|, |b|)) with scale 1: for values far
// below 1 (seconds of microseconds, fractions of a byte rate) that is an absolute tolerance of about
// 1e-5, which passes nearly anything. Our expectations are relative: the scale is the smallest normal
// double, so an expected 0 still needs an exact 0.
#include <limits>

#include <doctest/doctest.h>

inline doctest::Approx approx(double value) { return doctest::Approx(value).scale(std::numeric_limits<double>::min()); }
