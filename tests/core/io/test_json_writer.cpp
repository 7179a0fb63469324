// JsonWriter: string escapes, numbers, arrays, booleans, non-finite numbers as null.
#include "core/io/json_writer.hpp"
#include "test_harness.hpp"

#include <limits>
#include <string>
#include <vector>

TEST_CASE("json writer escapes strings and writes non-finite numbers as null") {
  ttgnn::JsonWriter w;
  w.field("s", std::string("a\"b\\c\nd"));
  w.field("i", 42);
  w.field("x", 0.25);
  w.field("v", std::vector<int>{1, 2});
  w.field("b", true);
  CHECK(w.str() == R"({"s":"a\"b\\c\nd","i":42,"x":0.25,"v":[1,2],"b":true})");
  CHECK(ttgnn::JsonWriter::number(std::numeric_limits<double>::infinity()) == "null");
}
