// Sequential precision conversions, the oracle of the other backends.
#include "matrix/precision/kernels.hpp"

namespace loom::matrix::reference {

template <typename To, typename From>
void convert_values(const ReferenceExecutor&, size_type rows, size_type cols, const From* in,
                    size_type in_stride, To* out, size_type out_stride)
{
    for (size_type i = 0; i < rows; ++i) {
        for (size_type j = 0; j < cols; ++j) {
            out[i * out_stride + j] = precision::converted<To>(in[i * in_stride + j]);
        }
    }
}

#define LOOM_INSTANTIATE_PRECISION_REFERENCE(To, From) \
    LOOM_INSTANTIATE_PRECISION_KERNELS(ReferenceExecutor, To, From);
LOOM_FOR_EACH_PRECISION_PAIR(LOOM_INSTANTIATE_PRECISION_REFERENCE)

}  // namespace loom::matrix::reference
