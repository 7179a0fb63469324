#ifndef TTGNN_TESTS_EPOCH_ALLOCATIONS_HPP
#define TTGNN_TESTS_EPOCH_ALLOCATIONS_HPP
/// \file epoch_allocations.hpp
/// \brief The View allocations of a training run, by label and epoch: Kokkos Tools' allocate
/// callback counts them, the run's on_epoch callback closes each epoch's record.

#include "models/train/train_options.hpp"

#include <Kokkos_Core.hpp>
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ttgnn::test {

/// Allocations per label, one record per epoch (one recorder at a time: the callback is global).
struct EpochAllocations {
  using Record = std::map<std::string, int>;
  std::vector<Record> epochs;

  /// The TrainOptions::on_epoch callback that closes the current epoch's record.
  ttgnn::EpochCallback on_epoch() {
    return [this](ttgnn::EpochRecord const &) {
      epochs.push_back(current());
      current().clear();
    };
  }

  /// Runs \p run with the allocate callback installed, and returns what it returns.
  template <class Run> decltype(auto) record(Run &&run) {
    namespace tools = Kokkos::Tools::Experimental;
    struct Uninstall {
      ~Uninstall() { tools::set_allocate_data_callback(nullptr); }
    };
    current().clear();
    tools::set_allocate_data_callback(&on_allocate);
    const Uninstall uninstall;
    return run();
  }

  /// The allocations \p run makes (one record for the whole call).
  template <class Run> static Record during(Run &&run) {
    EpochAllocations a;
    a.record([&] {
      run();
      return 0;
    });
    return current();
  }

  /// Allocations in one record.
  static int total(Record const &r) {
    int n = 0;
    for (auto const &kv : r)
      n += kv.second;
    return n;
  }

  /// Checks that the epochs from \p first (0-based) on allocated nothing, naming what they did.
  void check_none_from(std::size_t first) const {
    for (std::size_t e = first; e < epochs.size(); ++e) {
      std::string seen;
      for (auto const &[label, count] : epochs[e])
        seen += label + " x" + std::to_string(count) + "; ";
      INFO("epoch " << e + 1 << ": " << seen);
      CHECK(epochs[e].empty());
    }
  }

private:
  static Record &current() {
    static Record r;
    return r;
  }
  static void on_allocate(Kokkos_Profiling_SpaceHandle, char const *label, void const *,
                          std::uint64_t) {
    ++current()[label];
  }
};

} // namespace ttgnn::test

#endif
