// s + c += x without losing the rounding error of the addition (Knuth's TwoSum): the one
// compensated addition of the statistics kernels (on scalars and vectors), the tensor comparisons
// of element_values and dump-compare's pair sums.
#pragma once

namespace msdt {

template <class A>
[[gnu::always_inline]] inline void two_sum(A& s, A& c, A x) {
  A t = s + x;
  A z = t - s;
  c += (s - (t - z)) + (x - z);
  s = t;
}

}  // namespace msdt
