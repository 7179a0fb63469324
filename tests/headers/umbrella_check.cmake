# ctest driver (cmake -P) of headers.umbrella: every public header (core/, graph/, models/ *.hpp,
# all installed) must be reachable from the umbrella header ttgnn.hpp through #include "..."
# lines, directly or through the headers it includes. Internal headers (installed, but included
# only by other ttgnn headers or sources) are exempt: those in a detail/ folder. Fails with the
# list of headers that are missing.
#   -DSOURCE_DIR=<repository root>
cmake_minimum_required(VERSION 3.16)
file(GLOB_RECURSE headers RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/core/*.hpp" "${SOURCE_DIR}/graph/*.hpp"
     "${SOURCE_DIR}/models/*.hpp")
set(seen "")
set(queue "ttgnn.hpp")
while(queue)
  list(POP_FRONT queue h)
  if(h IN_LIST seen OR NOT EXISTS "${SOURCE_DIR}/${h}")
    continue()
  endif()
  list(APPEND seen "${h}")
  file(STRINGS "${SOURCE_DIR}/${h}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"[^\"]+\"")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" inc "${line}")
    list(APPEND queue "${inc}")
  endforeach()
endwhile()
set(missing "")
foreach(h IN LISTS headers)
  if(NOT h IN_LIST seen AND NOT h MATCHES "/detail/")
    list(APPEND missing "${h}")
  endif()
endforeach()
list(LENGTH headers total)
if(missing)
  list(JOIN missing "\n  " text)
  message(FATAL_ERROR "ttgnn.hpp does not include (directly or through another header):\n  ${text}\n"
                      "add them to ttgnn.hpp (internal headers go in a detail/ folder)")
endif()
list(LENGTH seen reached)
message("ttgnn.hpp reaches ${reached} headers; none of the ${total} in core/, graph/, models/ is "
        "missing")
