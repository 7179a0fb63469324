#ifndef TTGNN_MODELS_EMBEDDING_INIT_METHOD_HPP
#define TTGNN_MODELS_EMBEDDING_INIT_METHOD_HPP
/// \file init_method.hpp
/// \brief The initialisation schemes of embedding tables, by name (embedding_init.hpp computes
/// them).

#include <string>

namespace ttgnn {

/// Initialisation schemes of embedding tables.
enum class InitMethod { gaussian, orthogonal, spectral };
/// "gaussian", "ortho", "spectral".
std::string to_string(InitMethod method);
/// Inverse of to_string ("orthogonal" is accepted too); ConfigError otherwise.
InitMethod parse_init_method(std::string const &name);

} // namespace ttgnn

#endif
