# One internal target, ttgnn_kokkoskernels, over whichever KokkosKernels target the install
# exports: standalone Kokkos::kokkoskernels, Trilinos >= 14 KokkosKernels::all_libs, or
# Debian's binary trilinos_kokkoskernels (which carries no include dirs).
add_library(ttgnn_kokkoskernels INTERFACE)
if(TARGET Kokkos::kokkoskernels)
  target_link_libraries(ttgnn_kokkoskernels INTERFACE Kokkos::kokkoskernels)
elseif(TARGET KokkosKernels::all_libs)
  target_link_libraries(ttgnn_kokkoskernels INTERFACE KokkosKernels::all_libs)
elseif(TARGET trilinos_kokkoskernels)
  target_link_libraries(ttgnn_kokkoskernels INTERFACE trilinos_kokkoskernels)
  target_include_directories(ttgnn_kokkoskernels INTERFACE ${Kokkos_INCLUDE_DIRS})
else()
  message(FATAL_ERROR "KokkosKernels was found but exports none of Kokkos::kokkoskernels, "
    "KokkosKernels::all_libs, trilinos_kokkoskernels")
endif()
