// runtime_info: version, backends, BLAS facts, and its JSON form.
#include "core/io/json_writer.hpp"
#include "core/kokkos_compat.hpp"
#include "core/linalg/runtime_info.hpp"
#include "test_harness.hpp"

#include <string>

TEST_CASE("runtime info names version, backends and a real BLAS") {
  const auto info = ttgnn::runtime_info();
  CHECK(info.ttgnn_version == "0.1.0");
  CHECK(info.kokkos_version == ttgnn::compat::kokkos_version_string());
  CHECK(!info.backends.empty());
  CHECK(info.host_threads >= 1);
  CHECK(info.blas.gemm_ok);
  if (info.blas.tpl_enabled) {
    // The reference BLAS is 17x slower for gemm: dgemm_ must resolve to an optimised one.
    CHECK(!info.blas.library.empty());
    CHECK(info.blas.vendor != "reference");
  }
  const std::string json = ttgnn::to_json(info);
  CHECK(json.front() == '{');
  CHECK(json.find("\"kokkos_version\":\"" + info.kokkos_version + "\"") != std::string::npos);
}
