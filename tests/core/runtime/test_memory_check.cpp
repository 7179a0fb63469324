// Sizes against the machine's memory, and allocation failures reported with the stage they
// happened in.
#include "core/error.hpp"
#include "core/runtime/memory_check.hpp"
#include "test_harness.hpp"

#include <new>
#include <stdexcept>
#include <string>

namespace {

bool contains(std::string const &s, std::string const &part) {
  return s.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("memory check: sizes beyond the machine's memory are refused with the option") {
  const double memory = double(ttgnn::machine_memory_bytes());
  REQUIRE(memory > 0);
  CHECK_NOTHROW(ttgnn::require_memory("--emb-dim 64", 1024.0));
  try {
    ttgnn::require_memory("--tt-rank 100000: the TT cores", 2 * memory);
    FAIL("no error");
  } catch (ttgnn::ConfigError const &e) {
    CHECK(contains(e.what(), "--tt-rank 100000: the TT cores would take"));
    CHECK(contains(e.what(), "of memory of this machine"));
  }
  CHECK(ttgnn::format_bytes(512) == "512 B");
  CHECK(ttgnn::format_bytes(1536) == "1.5 KiB");
  CHECK(ttgnn::format_bytes(3.0 * 1024 * 1024 * 1024) == "3 GiB");
}

TEST_CASE("memory check: stages nest, and an exception keeps the stage it left") {
  CHECK(ttgnn::current_stage().empty());
  {
    ttgnn::StageScope outer("training");
    {
      ttgnn::StageScope inner("writing the outputs");
      CHECK(ttgnn::current_stage() == "writing the outputs");
    }
    CHECK(ttgnn::current_stage() == "training");
  }
  CHECK(ttgnn::current_stage().empty());
  std::string message;
  try {
    ttgnn::StageScope outer("initialising the input");
    throw std::runtime_error("Kokkos ERROR: Host memory space failed to allocate 2.037 TiB "
                             "(label=\"ttgnn::tt_embedding::cores::core1\").");
  } catch (std::exception const &e) {
    message = ttgnn::out_of_memory_message(e);
  }
  CHECK(contains(message, "out of memory while initialising the input: needs 2.037 TiB more "
                          "for ttgnn::tt_embedding::cores::core1"));
  CHECK(ttgnn::out_of_memory_message(std::runtime_error("some other failure")).empty());
  CHECK(contains(ttgnn::out_of_memory_message(std::bad_alloc()), "out of memory"));
}
