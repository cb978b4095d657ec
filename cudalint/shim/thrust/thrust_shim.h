/* thrust/thrust_shim.h - cudalint's parse-only stand-in for Thrust (light declarations). */
#include "cudalint_shim.h"
#ifndef CUDALINT_THRUST_H
#define CUDALINT_THRUST_H
#include <cstddef>
#include <iterator>
#include <type_traits>
#include <vector>
#define THRUST_VERSION 200800
#define THRUST_MAJOR_VERSION 2
#define THRUST_MINOR_VERSION 8
namespace thrust {
namespace detail { struct execution_policy_marker {}; }
template <class Derived> struct execution_policy : detail::execution_policy_marker {};
struct device_execution_policy : execution_policy<device_execution_policy> {
  device_execution_policy on(cudaStream_t s) const;
};
struct host_execution_policy : execution_policy<host_execution_policy> {};
extern const device_execution_policy device;
extern const host_execution_policy host;
extern const host_execution_policy seq;
namespace cuda { extern const device_execution_policy par; extern const device_execution_policy par_nosync; }
namespace system { namespace cuda { using thrust::cuda::par; } }
template <class T> using __cl_if_policy =
    typename std::enable_if<std::is_base_of<detail::execution_policy_marker,
                                            typename std::decay<T>::type>::value>::type;
template <class T> using __cl_if_not_policy =
    typename std::enable_if<!std::is_base_of<detail::execution_policy_marker,
                                             typename std::decay<T>::type>::value>::type;

template <class T> class device_reference {
public:
  __host__ __device__ operator T() const;
  __host__ __device__ device_reference &operator=(const T &v);
  __host__ __device__ device_reference &operator+=(const T &v);
};
template <class T> class device_ptr {
public:
  typedef T value_type;
  typedef std::ptrdiff_t difference_type;
  typedef T *pointer;
  typedef device_reference<T> reference;
  typedef std::random_access_iterator_tag iterator_category;
  __host__ __device__ device_ptr();
  __host__ __device__ explicit device_ptr(T *p);
  __host__ __device__ T *get() const;
  __host__ __device__ reference operator*() const;
  __host__ __device__ reference operator[](difference_type i) const;
  __host__ __device__ device_ptr &operator++();
  __host__ __device__ device_ptr operator++(int);
  __host__ __device__ device_ptr &operator--();
  __host__ __device__ device_ptr &operator+=(difference_type n);
  __host__ __device__ device_ptr operator+(difference_type n) const;
  __host__ __device__ device_ptr operator-(difference_type n) const;
  __host__ __device__ difference_type operator-(const device_ptr &o) const;
  __host__ __device__ bool operator==(const device_ptr &o) const;
  __host__ __device__ bool operator!=(const device_ptr &o) const;
  __host__ __device__ bool operator<(const device_ptr &o) const;
};
template <class T> __host__ __device__ T *raw_pointer_cast(const device_ptr<T> &p);
template <class T> __host__ __device__ T *raw_pointer_cast(T *p);
template <class T> __host__ __device__ device_ptr<T> device_pointer_cast(T *p);
template <class T> device_ptr<T> device_malloc(std::size_t n);
template <class T> void device_free(device_ptr<T> p);

template <class T> class device_vector;
template <class T> class host_vector : public std::vector<T> {
public:
  using std::vector<T>::vector;
  host_vector();
  template <class U> host_vector(const device_vector<U> &v);
};
template <class T> class device_vector {
public:
  typedef T value_type;
  typedef std::size_t size_type;
  typedef device_ptr<T> iterator;
  typedef device_ptr<const T> const_iterator;
  typedef device_ptr<T> pointer;
  typedef device_ptr<const T> const_pointer;
  typedef device_reference<T> reference;
  device_vector();
  explicit device_vector(size_type n);
  device_vector(size_type n, const T &value);
  device_vector(const device_vector &v);
  template <class U> device_vector(const std::vector<U> &v);
  template <class U> device_vector(const host_vector<U> &v);
  template <class It, class = __cl_if_not_policy<It>> device_vector(It first, It last);
  device_vector &operator=(const device_vector &v);
  template <class U> device_vector &operator=(const std::vector<U> &v);
  template <class U> device_vector &operator=(const host_vector<U> &v);
  ~device_vector();
  size_type size() const;
  bool empty() const;
  void resize(size_type n);
  void resize(size_type n, const T &value);
  void clear();
  void reserve(size_type n);
  size_type capacity() const;
  void push_back(const T &v);
  void shrink_to_fit();
  pointer data();
  const_pointer data() const;
  iterator begin();
  const_iterator begin() const;
  const_iterator cbegin() const;
  iterator end();
  const_iterator end() const;
  const_iterator cend() const;
  reference operator[](size_type n);
  T operator[](size_type n) const;
  reference front();
  reference back();
};

/* functors */
#define __CL_TH_BIN(name, R) template <class T = void> struct name { \
  __host__ __device__ R operator()(const T &a, const T &b) const; };
__CL_TH_BIN(plus, T) __CL_TH_BIN(minus, T) __CL_TH_BIN(multiplies, T) __CL_TH_BIN(divides, T)
__CL_TH_BIN(modulus, T) __CL_TH_BIN(maximum, T) __CL_TH_BIN(minimum, T) __CL_TH_BIN(less, bool)
__CL_TH_BIN(greater, bool) __CL_TH_BIN(less_equal, bool) __CL_TH_BIN(greater_equal, bool)
__CL_TH_BIN(equal_to, bool) __CL_TH_BIN(not_equal_to, bool) __CL_TH_BIN(logical_and, bool)
__CL_TH_BIN(logical_or, bool) __CL_TH_BIN(bit_and, T) __CL_TH_BIN(bit_or, T) __CL_TH_BIN(bit_xor, T)
#undef __CL_TH_BIN
template <class T = void> struct negate { __host__ __device__ T operator()(const T &a) const; };
template <class T = void> struct identity { __host__ __device__ const T &operator()(const T &a) const; };
namespace placeholders { struct __cl_ph {}; extern const __cl_ph _1, _2; }

/* iterators */
template <class T> struct counting_iterator : device_ptr<T> {
  __host__ __device__ counting_iterator(T init);
};
template <class T> __host__ __device__ counting_iterator<T> make_counting_iterator(T init);
template <class T> struct constant_iterator : device_ptr<T> {
  __host__ __device__ constant_iterator(T v);
};
template <class T> __host__ __device__ constant_iterator<T> make_constant_iterator(T v);
template <class... Its> struct zip_iterator { };
template <class... Its> __host__ __device__ zip_iterator<Its...> make_zip_iterator(Its... its);
template <class... Ts> struct tuple { };
template <class... Ts> __host__ __device__ tuple<Ts...> make_tuple(Ts... ts);

template <class It> using __cl_value_t = typename std::iterator_traits<It>::value_type;
template <class It> using __cl_diff_t = typename std::iterator_traits<It>::difference_type;

/* algorithms: with or without an execution policy first */
template <class... A> void sort(A &&...args);
template <class... A> void stable_sort(A &&...args);
template <class... A> void sort_by_key(A &&...args);
template <class... A> void stable_sort_by_key(A &&...args);
template <class... A> void fill(A &&...args);
template <class... A> void sequence(A &&...args);
template <class... A> void for_each_n(A &&...args);
template <class... A> void tabulate(A &&...args);
template <class... A> void gather(A &&...args);
template <class... A> void scatter(A &&...args);
template <class It> __cl_value_t<It> reduce(It first, It last);
template <class It, class T> T reduce(It first, It last, T init);
template <class It, class T, class Op, class = __cl_if_not_policy<It>> T reduce(It first, It last, T init, Op op);
template <class P, class It, class = __cl_if_policy<P>> __cl_value_t<It> reduce(const P &policy, It first, It last);
template <class P, class It, class T, class = __cl_if_policy<P>> T reduce(const P &policy, It first, It last, T init);
template <class P, class It, class T, class Op> T reduce(const P &policy, It first, It last, T init, Op op);
template <class It, class F, class T, class Op, class = __cl_if_not_policy<It>>
T transform_reduce(It first, It last, F unary_op, T init, Op binary_op);
template <class P, class It, class F, class T, class Op>
T transform_reduce(const P &policy, It first, It last, F unary_op, T init, Op binary_op);
template <class It1, class It2, class T, class = __cl_if_not_policy<It1>>
T inner_product(It1 first1, It1 last1, It2 first2, T init);
template <class It, class Out> Out copy(It first, It last, Out result);
template <class P, class It, class Out, class = __cl_if_policy<P>> Out copy(const P &policy, It first, It last, Out result);
template <class It, class N, class Out, class = __cl_if_not_policy<It>> Out copy_n(It first, N n, Out result);
template <class It, class Out, class Pred, class = __cl_if_not_policy<It>> Out copy_if(It first, It last, Out result, Pred pred);
template <class P, class It, class Out, class Pred> Out copy_if(const P &policy, It first, It last, Out result, Pred pred);
template <class It, class Out, class F> Out transform(It first, It last, Out result, F op);
template <class It1, class It2, class Out, class F, class = __cl_if_not_policy<It1>>
Out transform(It1 first1, It1 last1, It2 first2, Out result, F op);
template <class P, class It, class Out, class F, class = __cl_if_policy<P>>
Out transform(const P &policy, It first, It last, Out result, F op);
template <class P, class It1, class It2, class Out, class F>
Out transform(const P &policy, It1 first1, It1 last1, It2 first2, Out result, F op);
template <class It, class F> F for_each(It first, It last, F f);
template <class P, class It, class F, class = __cl_if_policy<P>> It for_each(const P &policy, It first, It last, F f);
template <class It, class Out> Out inclusive_scan(It first, It last, Out result);
template <class It, class Out, class Op, class = __cl_if_not_policy<It>> Out inclusive_scan(It first, It last, Out result, Op op);
template <class P, class It, class Out, class = __cl_if_policy<P>> Out inclusive_scan(const P &policy, It first, It last, Out result);
template <class It, class Out> Out exclusive_scan(It first, It last, Out result);
template <class It, class Out, class T, class = __cl_if_not_policy<It>> Out exclusive_scan(It first, It last, Out result, T init);
template <class P, class It, class Out, class = __cl_if_policy<P>> Out exclusive_scan(const P &policy, It first, It last, Out result);
template <class It, class V> __cl_diff_t<It> count(It first, It last, const V &value);
template <class It, class Pred, class = __cl_if_not_policy<It>> __cl_diff_t<It> count_if(It first, It last, Pred pred);
template <class It> It max_element(It first, It last);
template <class It> It min_element(It first, It last);
template <class It, class Cmp, class = __cl_if_not_policy<It>> It max_element(It first, It last, Cmp comp);
template <class It> It unique(It first, It last);
template <class It, class Pred> bool all_of(It first, It last, Pred pred);
template <class It, class Pred> bool any_of(It first, It last, Pred pred);
} // namespace thrust
#endif
