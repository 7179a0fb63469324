#ifndef TTGNN_CORE_ERROR_HPP
#define TTGNN_CORE_ERROR_HPP
/// \file error.hpp
/// \brief ttgnn's exception types. Every error a user can cause is one of these, with a
/// message that names what was wrong and where.

#include <stdexcept>
#include <string>

namespace ttgnn {

/// Base of all ttgnn errors.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Bad input data: malformed file, out-of-range id, NaN feature, missing file, ...
class InputError : public Error {
public:
  using Error::Error;
};

/// An impossible shape or setting (TT shape, option value, ...).
class ConfigError : public Error {
public:
  using Error::Error;
};

/// A third-party library (METIS, Spectra, zlib, libzip) reported a failure.
class LibraryError : public Error {
public:
  using Error::Error;
};

} // namespace ttgnn

#endif
