# ctest driver (cmake -P) of examples.from_install: install the built ttgnn into a scratch
# prefix, configure and build examples/ against that prefix only (find_package(ttgnn)), then
# run every example; each returns non-zero when its result is off.
#   -DTTGNN_BUILD_DIR -DEXAMPLES_SOURCE_DIR -DWORK_DIR -DCORA_DIR -DCMAKE_CXX_COMPILER
#   -DCMAKE_BUILD_TYPE
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
function(run)
  string(TIMESTAMP t0 "%s")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(TIMESTAMP t1 "%s")
  math(EXPR seconds "${t1} - ${t0}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}) after ${seconds} s: ${ARGN}\n${out}")
  endif()
  message("[${seconds} s] ${ARGN}\n${out}")
endfunction()
run(${CMAKE_COMMAND} --install "${TTGNN_BUILD_DIR}" --prefix "${prefix}")
if(NOT EXISTS "${prefix}/share/doc/ttgnn/API.md")
  message(FATAL_ERROR "the install has no ${prefix}/share/doc/ttgnn/API.md (install(DIRECTORY docs/))")
endif()
run(${CMAKE_COMMAND} -S "${EXAMPLES_SOURCE_DIR}" -B "${WORK_DIR}/build"
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
    -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE})
run(${CMAKE_COMMAND} --build "${WORK_DIR}/build" -j 2)
run("${WORK_DIR}/build/tt_layer_only")
run("${WORK_DIR}/build/own_csr_gcn")
run("${WORK_DIR}/build/cora_end_to_end" "${CORA_DIR}")
run("${WORK_DIR}/build/tt_dlrm_click")
