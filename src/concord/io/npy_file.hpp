// NumPy .npy files (format version 1.0) of little-endian float32 matrices: the fluid's
// per-frame particle files (fluid/NNNNNN.npy, docs/cli.md "Output directory").
#pragma once

#include <string>
#include <vector>

namespace concord {

struct NpyMatrix {
    std::size_t rows = 0, cols = 0;
    std::vector<float> data;  ///< row-major, rows * cols
};

/// The bytes of a .npy file holding m ('<f4', C order, shape (rows, cols)).
std::string npy_bytes(const NpyMatrix& m);

/// Reads a file written by npy_bytes (or numpy.save of a 2-d little-endian float32 C-order
/// array). Throws InputError naming the file for anything else, a truncated file included.
NpyMatrix read_npy(const std::string& path);

}  // namespace concord
