#ifndef TTGNN_HPP
#define TTGNN_HPP
/// \file ttgnn.hpp
/// \brief Umbrella header: everything public in ttgnn.

#include "ttgnn_config.hpp"

#include "core/dense_gemm.hpp"
#include "core/error.hpp"
#include "core/json_writer.hpp"
#include "core/kokkos_compat.hpp"
#include "core/mixed_radix.hpp"
#include "core/runtime_info.hpp"

#include "graph/boost_adapter.hpp"
#include "graph/checksum.hpp"
#include "graph/csr_build.hpp"
#include "graph/edge_list_loader.hpp"
#include "graph/graph_cache.hpp"
#include "graph/graph_stats.hpp"
#include "graph/line_reader.hpp"
#include "graph/npy_reader.hpp"
#include "graph/ogb_loader.hpp"

#endif
