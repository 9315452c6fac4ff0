// Prints tensor values the way NumPy's repr lays them out, for `dump-parse --show`.
#pragma once

#include <ostream>

#include "tensor/dtype.h"

namespace msdt {

// Nested brackets per dimension; at most `max_elements` values, with "..." standing for the
// middle of long dimensions as np.set_printoptions(threshold=…) does. Floats print in the shortest
// form that round-trips; bfloat16/float16/float8 are printed as their float value.
void print_values(std::ostream& out, const TensorView& tensor, uint64_t max_elements);

}  // namespace msdt
