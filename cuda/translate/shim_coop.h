
// shim_coop.h (appended to shim.h): the parts of cooperative_groups.h,
// cooperative_groups/reduce.h and scan.h, and cuda/atomic's atomic_ref
// that gpusim's generated code uses, written on the warp intrinsics above,
// with CUDA's names, member signatures and result types, so that a call
// CUDA would reject fails here too. grid_group::sync is a block barrier
// and fence here: the shim checks names and types; the grid barrier
// itself runs on the device, under cudaLaunchCooperativeKernel.
#ifndef GOSIM_SHIM_COOP_H
#define GOSIM_SHIM_COOP_H

namespace cooperative_groups {
namespace gosim_detail {
__device__ __forceinline__ unsigned int lane(void)
{
	unsigned int r;
	__asm__("mov.u32 %0, %%laneid;" : "=r"(r));
	return r;
}
__device__ __forceinline__ unsigned int block_rank(void)
{
	return threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
}
__device__ __forceinline__ unsigned int block_size(void) { return blockDim.x * blockDim.y * blockDim.z; }
// The lane of the group rank r in mask.
__device__ __forceinline__ int lane_of(unsigned int mask, unsigned int r)
{
	for (int l = 0; l < 32; l++)
		if (mask >> l & 1u) {
			if (r == 0) return l;
			r--;
		}
	return -1;
}
template <typename T> struct is_shfl { static const bool value = false; };
template <> struct is_shfl<int> { static const bool value = true; };
template <> struct is_shfl<unsigned int> { static const bool value = true; };
template <> struct is_shfl<long long> { static const bool value = true; };
template <> struct is_shfl<unsigned long long> { static const bool value = true; };
template <> struct is_shfl<float> { static const bool value = true; };
template <> struct is_shfl<double> { static const bool value = true; };
} // namespace gosim_detail

class thread_block {
public:
	__device__ void sync() const { __syncthreads(); }
	__device__ unsigned int thread_rank() const { return gosim_detail::block_rank(); }
	__device__ unsigned int num_threads() const { return gosim_detail::block_size(); }
	__device__ unsigned int size() const { return gosim_detail::block_size(); }
};
__device__ __forceinline__ thread_block this_thread_block() { return thread_block(); }

// thread_group: what the dynamic tiled_partition returns.
class thread_group {
	unsigned int mask_, size_, rank_;
public:
	__device__ thread_group(unsigned int mask, unsigned int size, unsigned int rank) : mask_(mask), size_(size), rank_(rank) {}
	__device__ void sync() const { __syncwarp(mask_); }
	__device__ unsigned long long thread_rank() const { return rank_; }
	__device__ unsigned long long num_threads() const { return size_; }
	__device__ unsigned long long size() const { return size_; }
};

template <unsigned int N, typename P = void> class thread_block_tile;
template <unsigned int N> class thread_block_tile<N, void> {
	static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "thread_block_tile<N>: N a power of two up to 32 (larger tiles are not modelled)");
	unsigned int meta_rank_, meta_size_;
	__device__ unsigned int base() const { return gosim_detail::lane() & ~(N - 1); }
public:
	__device__ thread_block_tile(unsigned int meta_rank, unsigned int meta_size) : meta_rank_(meta_rank), meta_size_(meta_size) {}
	__device__ unsigned int build_mask() const { return (N == 32 ? 0xffffffffu : ((1u << (N & 31)) - 1)) << base(); }
	__device__ void sync() const { __syncwarp(build_mask()); }
	__device__ unsigned int thread_rank() const { return gosim_detail::block_rank() & (N - 1); }
	__device__ unsigned int num_threads() const { return N; }
	__device__ unsigned int size() const { return N; }
	__device__ unsigned int meta_group_rank() const { return meta_rank_; }
	__device__ unsigned int meta_group_size() const { return meta_size_; }
	template <typename T> __device__ T shfl(T v, int src) const
	{
		static_assert(gosim_detail::is_shfl<T>::value, "shfl of this type is not modelled");
		return __shfl_sync(build_mask(), v, src, (int)N);
	}
	template <typename T> __device__ T shfl_up(T v, unsigned int d) const { return __shfl_up_sync(build_mask(), v, (int)d, (int)N); }
	template <typename T> __device__ T shfl_down(T v, unsigned int d) const { return __shfl_down_sync(build_mask(), v, (int)d, (int)N); }
	template <typename T> __device__ T shfl_xor(T v, unsigned int m) const { return __shfl_xor_sync(build_mask(), v, (int)m, (int)N); }
	__device__ int any(int p) const { return __any_sync(build_mask(), p); }
	__device__ int all(int p) const { return __all_sync(build_mask(), p); }
	__device__ unsigned int ballot(int p) const { return __ballot_sync(build_mask(), p) >> base(); }
	template <typename T> __device__ unsigned int match_any(T v) const { return __match_any_sync(build_mask(), v) >> base(); }
	template <typename T> __device__ unsigned int match_all(T v, int &pred) const { return __match_all_sync(build_mask(), v, &pred) >> base(); }
	__device__ operator thread_group() const { return thread_group(build_mask(), N, thread_rank()); }
};
template <unsigned int N, typename P> class thread_block_tile : public thread_block_tile<N, void> {
public:
	__device__ thread_block_tile(unsigned int meta_rank, unsigned int meta_size) : thread_block_tile<N, void>(meta_rank, meta_size) {}
};

template <unsigned int N> __device__ __forceinline__ thread_block_tile<N, thread_block> tiled_partition(const thread_block &g)
{
	return thread_block_tile<N, thread_block>(g.thread_rank() / N, (g.num_threads() + N - 1) / N);
}
template <unsigned int N, unsigned int M, typename P> __device__ __forceinline__ thread_block_tile<N, thread_block_tile<M, P>> tiled_partition(const thread_block_tile<M, P> &g)
{
	static_assert(N <= M, "a tile cannot be larger than its parent");
	return thread_block_tile<N, thread_block_tile<M, P>>(g.thread_rank() / N, M / N);
}
__device__ __forceinline__ thread_group tiled_partition(const thread_group &g, unsigned int n)
{
	unsigned int r = (unsigned int)g.thread_rank(), first = gosim_detail::lane() - r % n;
	return thread_group((n == 32 ? 0xffffffffu : ((1u << n) - 1)) << first, n, r % n);
}
__device__ __forceinline__ thread_group tiled_partition(const thread_block &g, unsigned int n)
{
	return tiled_partition(thread_group(__activemask(), g.num_threads(), g.thread_rank()), n);
}

class coalesced_group {
	unsigned int mask_, meta_rank_, meta_size_;
public:
	__device__ explicit coalesced_group(unsigned int mask) : mask_(mask), meta_rank_(0), meta_size_(1) {}
	__device__ void sync() const { __syncwarp(mask_); }
	__device__ unsigned int thread_rank() const { return __popc(mask_ & ((1u << gosim_detail::lane()) - 1)); }
	__device__ unsigned int num_threads() const { return __popc(mask_); }
	__device__ unsigned int size() const { return __popc(mask_); }
	__device__ unsigned int meta_group_rank() const { return meta_rank_; }
	__device__ unsigned int meta_group_size() const { return meta_size_; }
	template <typename T> __device__ T shfl(T v, unsigned int rank) const
	{
		static_assert(gosim_detail::is_shfl<T>::value, "shfl of this type is not modelled");
		return __shfl_sync(mask_, v, gosim_detail::lane_of(mask_, rank), 32);
	}
	template <typename T> __device__ T shfl_up(T v, int d) const
	{
		int r = (int)thread_rank() - d;
		return __shfl_sync(mask_, v, r < 0 ? (int)gosim_detail::lane() : gosim_detail::lane_of(mask_, r), 32);
	}
	template <typename T> __device__ T shfl_down(T v, int d) const
	{
		unsigned int r = thread_rank() + d;
		return __shfl_sync(mask_, v, r >= size() ? (int)gosim_detail::lane() : gosim_detail::lane_of(mask_, r), 32);
	}
	__device__ int any(int p) const { return __any_sync(mask_, p); }
	__device__ int all(int p) const { return __all_sync(mask_, p); }
	__device__ unsigned int ballot(int p) const { return pack(__ballot_sync(mask_, p)); }
	// Lane masks come back in group ranks, as ballot's.
	__device__ unsigned int pack(unsigned int lanes) const
	{
		unsigned int out = 0;
		for (unsigned int r = 0; r < size(); r++)
			out |= (lanes >> gosim_detail::lane_of(mask_, r) & 1u) << r;
		return out;
	}
	template <typename T> __device__ unsigned int match_any(T v) const { return pack(__match_any_sync(mask_, v)); }
	template <typename T> __device__ unsigned int match_all(T v, int &pred) const { return pack(__match_all_sync(mask_, v, &pred)); }
	__device__ unsigned int gosim_mask() const { return mask_; }
};
__device__ __forceinline__ coalesced_group coalesced_threads() { return coalesced_group(__activemask()); }
__device__ __forceinline__ coalesced_group labeled_partition(const coalesced_group &g, int label) { return coalesced_group(__match_any_sync(g.gosim_mask(), label)); }
template <unsigned int N, typename P> __device__ __forceinline__ coalesced_group labeled_partition(const thread_block_tile<N, P> &g, int label) { return coalesced_group(__match_any_sync(g.build_mask(), label)); }
__device__ __forceinline__ coalesced_group binary_partition(const coalesced_group &g, bool pred)
{
	unsigned int b = __ballot_sync(g.gosim_mask(), pred);
	return coalesced_group(pred ? b : g.gosim_mask() & ~b);
}
template <unsigned int N, typename P> __device__ __forceinline__ coalesced_group binary_partition(const thread_block_tile<N, P> &g, bool pred)
{
	unsigned int b = __ballot_sync(g.build_mask(), pred);
	return coalesced_group(pred ? b : g.build_mask() & ~b);
}

class grid_group {
public:
	__device__ void sync() const { __syncthreads(); __threadfence(); __syncthreads(); }
	__device__ bool is_valid() const { return true; }
	__device__ unsigned long long thread_rank() const { return (unsigned long long)num_blocks_rank() * gosim_detail::block_size() + gosim_detail::block_rank(); }
	__device__ unsigned long long num_threads() const { return (unsigned long long)num_blocks() * gosim_detail::block_size(); }
	__device__ unsigned long long size() const { return num_threads(); }
	__device__ unsigned int block_rank() const { return num_blocks_rank(); }
	__device__ unsigned int num_blocks() const { return gridDim.x * gridDim.y * gridDim.z; }
private:
	__device__ unsigned int num_blocks_rank() const { return blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y; }
};
__device__ __forceinline__ grid_group this_grid() { return grid_group(); }

// reduce.h and scan.h: the function objects and the collectives.
template <typename T> struct plus { __device__ T operator()(T a, T b) const { return a + b; } };
template <typename T> struct less { __device__ T operator()(T a, T b) const { return b < a ? b : a; } };
template <typename T> struct greater { __device__ T operator()(T a, T b) const { return b > a ? b : a; } };
template <typename T> struct bit_and { static_assert(__is_integral(T), "bit_and of a float"); __device__ T operator()(T a, T b) const { return a & b; } };
template <typename T> struct bit_or { static_assert(__is_integral(T), "bit_or of a float"); __device__ T operator()(T a, T b) const { return a | b; } };
template <typename T> struct bit_xor { static_assert(__is_integral(T), "bit_xor of a float"); __device__ T operator()(T a, T b) const { return a ^ b; } };
namespace gosim_detail {
template <typename O, typename T> struct op_of { static const bool value = false; };
template <template <typename> class O, typename T> struct op_of<O<T>, T> { static const bool value = true; };
}
template <unsigned int N, typename P, typename T, typename Op> __device__ T reduce(const thread_block_tile<N, P> &g, T v, Op op)
{
	static_assert(gosim_detail::op_of<Op, T>::value, "the operation's type must be the value's");
	for (unsigned int o = N / 2; o > 0; o /= 2)
		v = op(v, g.shfl_xor(v, o));
	return v;
}
template <unsigned int N, typename P, typename T, typename Op> __device__ T inclusive_scan(const thread_block_tile<N, P> &g, T v, Op op)
{
	static_assert(gosim_detail::op_of<Op, T>::value, "the operation's type must be the value's");
	for (unsigned int d = 1; d < N; d *= 2) {
		T u = g.shfl_up(v, d);
		if (g.thread_rank() >= d) v = op(v, u);
	}
	return v;
}
template <unsigned int N, typename P, typename T, typename Op> __device__ T exclusive_scan(const thread_block_tile<N, P> &g, T v, Op op)
{
	T u = g.shfl_up(inclusive_scan(g, v, op), 1);
	return g.thread_rank() == 0 ? T() : u;
}
template <typename T, typename Op> __device__ T inclusive_scan(const coalesced_group &g, T v, Op op)
{
	static_assert(gosim_detail::op_of<Op, T>::value, "the operation's type must be the value's");
	for (unsigned int d = 1; d < g.size(); d *= 2) {
		T u = g.shfl_up(v, d);
		if (g.thread_rank() >= d) v = op(v, u);
	}
	return v;
}
template <typename T, typename Op> __device__ T exclusive_scan(const coalesced_group &g, T v, Op op)
{
	T u = g.shfl_up(inclusive_scan(g, v, op), 1);
	return g.thread_rank() == 0 ? T() : u;
}
template <typename T, typename Op> __device__ T reduce(const coalesced_group &g, T v, Op op)
{
	return g.shfl(inclusive_scan(g, v, op), g.size() - 1);
}
} // namespace cooperative_groups

// cuda/atomic: atomic_ref over the shim's atomics and fences.
namespace cuda {
enum class memory_order : int { relaxed, consume, acquire, release, acq_rel, seq_cst };
constexpr memory_order memory_order_relaxed = memory_order::relaxed;
constexpr memory_order memory_order_consume = memory_order::consume;
constexpr memory_order memory_order_acquire = memory_order::acquire;
constexpr memory_order memory_order_release = memory_order::release;
constexpr memory_order memory_order_acq_rel = memory_order::acq_rel;
constexpr memory_order memory_order_seq_cst = memory_order::seq_cst;
template <unsigned long N> struct gosim_ubits;
template <> struct gosim_ubits<4> { typedef unsigned int type; };
template <> struct gosim_ubits<8> { typedef unsigned long long type; };
enum thread_scope { thread_scope_system, thread_scope_device, thread_scope_block, thread_scope_thread };

template <typename T, thread_scope S = thread_scope_system> class atomic_ref {
	static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomic_ref of 4- and 8-byte types only (as modelled)");
	T *p_;
	typedef typename gosim_ubits<sizeof(T)>::type U;
	__device__ static void fence()
	{
		if (S == thread_scope_block) __threadfence_block();
		else if (S == thread_scope_device) __threadfence();
		else __threadfence_system();
	}
	__device__ static void before(memory_order o) { if (o == memory_order_release || o == memory_order_acq_rel || o == memory_order_seq_cst) fence(); }
	__device__ static void after(memory_order o) { if (o == memory_order_acquire || o == memory_order_consume || o == memory_order_acq_rel || o == memory_order_seq_cst) fence(); }
	template <typename F> __device__ T rmw(F f, memory_order o) const
	{
		before(o);
		U *q = (U *)p_, cur = *(volatile U *)q, prev;
		do {
			prev = cur;
			T n = f(__builtin_bit_cast(T, prev));
			cur = atomicCAS(q, prev, __builtin_bit_cast(U, n));
		} while (cur != prev);
		T old = __builtin_bit_cast(T, prev);
		after(o);
		return old;
	}
public:
	__device__ explicit atomic_ref(T &r) : p_(&r) {}
	__device__ atomic_ref(const atomic_ref &) = default;
	atomic_ref &operator=(const atomic_ref &) = delete;
	__device__ T load(memory_order o = memory_order_seq_cst) const { before(o == memory_order_seq_cst ? o : memory_order_relaxed); T v = *(volatile T *)p_; after(o); return v; }
	__device__ void store(T v, memory_order o = memory_order_seq_cst) const { before(o); *(volatile T *)p_ = v; }
	__device__ T exchange(T v, memory_order o = memory_order_seq_cst) const { return rmw([v](T) { return v; }, o); }
	__device__ T fetch_add(T v, memory_order o = memory_order_seq_cst) const { return rmw([v](T a) { return a + v; }, o); }
	__device__ T fetch_sub(T v, memory_order o = memory_order_seq_cst) const { return rmw([v](T a) { return a - v; }, o); }
	template <typename U = T> __device__ T fetch_min(U v, memory_order o = memory_order_seq_cst) const { static_assert(__is_integral(T), "fetch_min of a float"); return rmw([v](T a) { return v < a ? (T)v : a; }, o); }
	template <typename U = T> __device__ T fetch_max(U v, memory_order o = memory_order_seq_cst) const { static_assert(__is_integral(T), "fetch_max of a float"); return rmw([v](T a) { return v > a ? (T)v : a; }, o); }
	template <typename U = T> __device__ T fetch_and(U v, memory_order o = memory_order_seq_cst) const { static_assert(__is_integral(T), "fetch_and of a float"); return rmw([v](T a) { return a & (T)v; }, o); }
	template <typename U = T> __device__ T fetch_or(U v, memory_order o = memory_order_seq_cst) const { static_assert(__is_integral(T), "fetch_or of a float"); return rmw([v](T a) { return a | (T)v; }, o); }
	template <typename U = T> __device__ T fetch_xor(U v, memory_order o = memory_order_seq_cst) const { static_assert(__is_integral(T), "fetch_xor of a float"); return rmw([v](T a) { return a ^ (T)v; }, o); }
	__device__ bool compare_exchange_strong(T &expected, T desired, memory_order o = memory_order_seq_cst) const
	{
		T e = expected;
		T old = rmw([e, desired](T a) { return __builtin_bit_cast(U, a) == __builtin_bit_cast(U, e) ? desired : a; }, o);
		bool ok = __builtin_bit_cast(U, old) == __builtin_bit_cast(U, e);
		expected = old;
		return ok;
	}
	__device__ bool compare_exchange_weak(T &expected, T desired, memory_order o = memory_order_seq_cst) const { return compare_exchange_strong(expected, desired, o); }
};
} // namespace cuda

#endif
