// Fixture of tests/scripts/test_long_functions.py's class counts: each class
// below has a known number of member functions (Big 8, Nested 2, Plain 0);
// deleted ones, friends, data members of function type, aliases and
// initializers that call something are not member functions. The layout is
// what the test reads, so clang-format leaves it as it is.
// clang-format off
#include <functional>

namespace fixture {

class Big {
 public:
  Big();
  explicit Big(int x) : x_{x} {}
  Big(const Big&) = delete;
  Big& operator=(const Big&) = delete;
  ~Big() = default;
  virtual int pure() const = 0;
  int inline_body() const { return x_; }
  template <typename T>
  T generic(T t) const;
  bool operator<(const Big& other) const;
  friend bool operator==(const Big&, const Big&);
  std::function<int(int)> callback_;
  static constexpr int kSize = sizeof(int);
  struct Nested {
    void one();
    int two() const { return 2; }
  };
  enum class Mode { kA, kB };

 private:
  using Alias = int (*)(int);
  int x_ = 0;
  int y_{3};
  void helper(int a,
              int b);
};

struct Plain { int a; int b; };

}  // namespace fixture
