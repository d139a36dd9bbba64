// Fixture of tests/scripts/test_long_functions.py's class counts: each class
// below has a known number of member functions (Big 8, Nested 2, Plain 0,
// Operators 6, Defaulted 2); deleted ones, friends (inline ones too), data
// members of function type, pointers to functions, aliases, alignas and
// initializers that call something are not member functions; a template
// function's `class T` and a variable of an elaborated type are no classes. The layout is
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

class Operators {
 public:
  bool operator==(const Operators& o) const { return x_ == o.x_; }
  bool operator!=(const Operators& o) const;
  Operators& operator+=(int d) { x_ += d; return *this; }
  Operators& operator<<(int d);
  int operator()(int a) const { return a; }
  template <typename T>
  T constrained(T t) const requires(sizeof(T) > 1) { return t; }
  friend int peek(const Operators& o) { return o.x_; }
  void (*callback)(int) = nullptr;
  alignas(64) int x_ = 0;
};

template <typename T, typename = void, int N = sizeof(T)>
struct Defaulted {
  T get() const { return T{}; }
  static int size() { return N; }
};

template <class T>
T twice(T t) {
  return t + t;
}

inline void elaborated() {
  struct Plain made{1, 2};
  static_cast<void>(made);
}

}  // namespace fixture
