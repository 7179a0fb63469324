# FindMETIS
# ---------
# Finds METIS (Debian: libmetis-dev, which has no CMake package of its own).
#
# Imported target: METIS::METIS.  Variables: METIS_FOUND, METIS_INCLUDE_DIR, METIS_LIBRARY,
# METIS_IDXTYPEWIDTH (32 or 64, read from metis.h).
find_path(METIS_INCLUDE_DIR NAMES metis.h PATH_SUFFIXES metis)
find_library(METIS_LIBRARY NAMES metis)
if(METIS_INCLUDE_DIR AND EXISTS "${METIS_INCLUDE_DIR}/metis.h")
  file(STRINGS "${METIS_INCLUDE_DIR}/metis.h" _metis_width REGEX "^#define IDXTYPEWIDTH ")
  string(REGEX REPLACE ".*IDXTYPEWIDTH ([0-9]+).*" "\\1" METIS_IDXTYPEWIDTH "${_metis_width}")
  file(STRINGS "${METIS_INCLUDE_DIR}/metis.h" _metis_ver REGEX "^#define METIS_VER_(MAJOR|MINOR|SUBMINOR) ")
  string(REGEX REPLACE ".*METIS_VER_MAJOR +([0-9]+).*" "\\1" _maj "${_metis_ver}")
  string(REGEX REPLACE ".*METIS_VER_MINOR +([0-9]+).*" "\\1" _min "${_metis_ver}")
  string(REGEX REPLACE ".*METIS_VER_SUBMINOR +([0-9]+).*" "\\1" _sub "${_metis_ver}")
  set(METIS_VERSION "${_maj}.${_min}.${_sub}")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(METIS REQUIRED_VARS METIS_LIBRARY METIS_INCLUDE_DIR
  VERSION_VAR METIS_VERSION)
if(METIS_FOUND AND NOT TARGET METIS::METIS)
  add_library(METIS::METIS UNKNOWN IMPORTED)
  set_target_properties(METIS::METIS PROPERTIES IMPORTED_LOCATION "${METIS_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${METIS_INCLUDE_DIR}")
endif()
mark_as_advanced(METIS_INCLUDE_DIR METIS_LIBRARY)
