#ifndef TTGNN_GRAPH_CHECKSUM_HPP
#define TTGNN_GRAPH_CHECKSUM_HPP
/// \file checksum.hpp
/// \brief Moved to core/checksum.hpp; this path stays for code that includes it.
#include "core/checksum.hpp"
#endif
