#ifndef TTGNN_GRAPH_COUNTER_RNG_HPP
#define TTGNN_GRAPH_COUNTER_RNG_HPP
/// \file counter_rng.hpp
/// \brief Moved to core/counter_rng.hpp; this path stays for code that includes it.
#include "core/counter_rng.hpp"
#endif
