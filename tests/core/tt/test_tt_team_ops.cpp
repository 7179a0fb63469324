// The small matrix products under the TT kernels: serial_gemm (every vector path: AVX2 when
// the CPU has it, SSE, the 16-byte-wide path and the scalar tail) and team_gemm in a team
// policy, against a double reference, for shapes with remainders and transposed A.
#include "core/tt/detail/tt_team_ops.hpp"
#include "test_harness.hpp"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace ttgnn;

namespace {

struct Case {
  int m, p, q;
  bool trans_a, accumulate;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (int m : {1, 3, 4, 5, 8, 9, 17})
    for (int p : {1, 4, 16})
      for (int q : {1, 2, 3, 4, 8, 12, 16, 24, 32, 37, 64})
        out.push_back({m, p, q, (m + q) % 2 == 1, (m + p + q) % 3 == 0});
  return out;
}

// C = [C +] A B in double; A is m x p (stored p x m when trans_a).
template <class S>
std::vector<double> reference(Case const &c, std::vector<S> const &a, std::vector<S> const &b,
                              std::vector<S> const &c0) {
  std::vector<double> out(c.m * c.q);
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.q; ++j) {
      double acc = c.accumulate ? double(c0[i * c.q + j]) : 0.0;
      for (int x = 0; x < c.p; ++x)
        acc += double(c.trans_a ? a[x * c.m + i] : a[i * c.p + x]) * double(b[x * c.q + j]);
      out[i * c.q + j] = acc;
    }
  return out;
}

template <class S> void check_serial() {
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto const &c : cases()) {
    CAPTURE(c.m);
    CAPTURE(c.p);
    CAPTURE(c.q);
    std::vector<S> a(c.m * c.p), b(c.p * c.q), cm(c.m * c.q);
    for (auto *v : {&a, &b, &cm})
      for (auto &x : *v)
        x = S(u(rng));
    auto want = reference(c, a, b, cm);
    const int a_rs = c.trans_a ? 1 : c.p, a_cs = c.trans_a ? c.m : 1;
    auto run = [&](auto &&gemm) {
      std::vector<S> out = cm;
      gemm(out.data());
      // Each entry sums p + 1 terms of magnitude <= 1: |error| <= (p + 1) eps.
      double err = 0;
      for (int i = 0; i < c.m * c.q; ++i)
        err = std::max(err, std::fabs(double(out[i]) - want[i]));
      CHECK(err <= (c.p + 1) * std::numeric_limits<S>::epsilon());
    };
    run([&](S *out) {
      detail::serial_gemm(c.m, c.p, c.q, a.data(), a_rs, a_cs, b.data(), c.q, out, c.q,
                          c.accumulate);
    });
#ifdef TTGNN_VECTOR_EXTENSIONS
    run([&](S *out) { // the SSE path and its scalar tail
      const int j0 = detail::serial_gemm_blocks<16>(c.m, c.p, c.q, a.data(), a_rs, a_cs, b.data(),
                                                    c.q, out, c.q, c.accumulate);
      for (int i = 0; i < c.m; ++i)
        for (int j = j0; j < c.q; ++j) {
          S acc = c.accumulate ? out[i * c.q + j] : S(0);
          for (int x = 0; x < c.p; ++x)
            acc += a[i * a_rs + x * a_cs] * b[x * c.q + j];
          out[i * c.q + j] = acc;
        }
    });
    if (c.q * sizeof(S) == 16)
      run([&](S *out) {
        detail::serial_gemm_narrow(c.m, c.p, a.data(), a_rs, a_cs, b.data(), c.q, out, c.q,
                                   c.accumulate);
      });
#endif
  }
}

template <class ExecutionSpace, class S> void check_team() {
  using mem = typename ExecutionSpace::memory_space;
  using member = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto const &c : cases()) {
    std::vector<S> a(c.m * c.p), b(c.p * c.q), cm(c.m * c.q);
    for (auto *v : {&a, &b, &cm})
      for (auto &x : *v)
        x = S(u(rng));
    auto want = reference(c, a, b, cm);
    Kokkos::View<S *, mem> da("a", a.size()), db("b", b.size()), dc("c", cm.size());
    for (auto [dv, hv] : {std::pair{da, &a}, std::pair{db, &b}, std::pair{dc, &cm}}) {
      auto m = Kokkos::create_mirror_view(dv);
      for (std::size_t i = 0; i < hv->size(); ++i)
        m(i) = (*hv)[i];
      Kokkos::deep_copy(dv, m);
    }
    const int a_rs = c.trans_a ? 1 : c.p, a_cs = c.trans_a ? c.m : 1;
    const Case cc = c;
    Kokkos::parallel_for(
        detail::make_team_policy(ExecutionSpace(), 1, 0), KOKKOS_LAMBDA(member const &team) {
          detail::team_gemm(team, cc.m, cc.p, cc.q, da.data(), a_rs, a_cs, db.data(), cc.q,
                            dc.data(), cc.q, cc.accumulate);
        });
    auto out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dc);
    double err = 0;
    for (int i = 0; i < c.m * c.q; ++i)
      err = std::max(err, std::fabs(double(out(i)) - want[i]));
    CHECK(err <= (c.p + 1) * std::numeric_limits<S>::epsilon());
  }
}

} // namespace

TEST_CASE("tt team ops: serial_gemm on every vector path matches a double reference") {
  check_serial<float>();
  check_serial<double>();
}

TTGNN_TEST_ALL_SPACES("tt team ops: team_gemm matches a double reference") {
  check_team<ExecutionSpace, float>();
  check_team<ExecutionSpace, double>();
}
