#include "support.hpp"

#include <limits>
#include <numeric>

using clalgo_test::context;
using clalgo_test::queue;

template <class T>
class ElementwiseTyped : public ::testing::Test {};
TYPED_TEST_SUITE(ElementwiseTyped, clalgo_test::ScalarTypes);

TYPED_TEST(ElementwiseTyped, LinearCombinationMatchesCpuForEveryTypeAndSize) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    const std::string t = clalgo::type_name<T>();
    clalgo::ElementwiseKernel kernel(context(), t + " a, const " + t + " *x, " + t + " b, const " + t + " *y, " + t + " *z",
                                     "z[i] = a*x[i] + b*y[i]");
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), (std::size_t(1) << 20) + 3}) {
        const auto hx = clalgo_test::random_values<T>(n, 1), hy = clalgo_test::random_values<T>(n, 2);
        auto x = clalgo::to_device(queue(), hx);
        auto y = clalgo::to_device(queue(), hy);
        clalgo::Array<T> z(queue(), n);
        const T a = T(3), b = T(2);
        kernel(queue(), a, x, b, y, z);
        const auto hz = z.to_host(queue());
        ASSERT_EQ(hz.size(), n);
        for (std::size_t k = 0; k < n; ++k) {
            const T expected = T(a * hx[k] + b * hy[k]);
            if constexpr (std::is_floating_point_v<T>)  // the device may contract a*x + b*y into an fma
                ASSERT_NEAR(hz[k], expected, 4 * std::numeric_limits<T>::epsilon()) << "n=" << n << " k=" << k;
            else
                ASSERT_EQ(hz[k], expected) << "n=" << n << " k=" << k;
        }
    }
}

TEST(Elementwise, RangeWithStepTouchesExactlyItsIndices) {
    clalgo::ElementwiseKernel mark(context(), "int *out", "out[i] = (int)(i * 2 + 1)");
    const std::size_t n = 1003;
    clalgo::Array<int> out(queue(), n);
    out.fill(queue(), -1);
    mark(queue(), clalgo::range(5, 1000, 7), out);
    const auto host = out.to_host(queue());
    for (std::size_t k = 0; k < n; ++k) {
        const bool touched = k >= 5 && k < 1000 && (k - 5) % 7 == 0;
        ASSERT_EQ(host[k], touched ? int(k * 2 + 1) : -1) << k;
    }
}

/// Sets CLALGO_MAP_ITEMS for its lifetime: maps built meanwhile run in tiles (the GPU path) on a CPU device too.
class ForcedMapItems {
public:
    explicit ForcedMapItems(const char* items) { setenv("CLALGO_MAP_ITEMS", items, 1); }
    ~ForcedMapItems() { unsetenv("CLALGO_MAP_ITEMS"); }
};

TEST(Elementwise, TilesCoverEveryIndexOnceAtTileEdgesAndRanges) {
    for (const char* items : {"1", "3", "4"}) {
        ForcedMapItems forced(items);
        const std::size_t tile = 256 * std::size_t(std::atoi(items));
        // the kernels' names differ per items: each is built while the variable is set
        clalgo::ElementwiseOptions options;
        options.name = std::string("tiled_count_") + items;
        clalgo::ElementwiseKernel count(context(), "int *hits", "hits[i] += 1", options);
        EXPECT_NE(count.source().find("#define CLALGO_CONTIGUOUS_CHUNKS 0"), std::string::npos);
        for (std::size_t n : {std::size_t(1), tile - 1, tile, tile + 1, 3 * tile + 5, (std::size_t(1) << 20) + 3}) {
            clalgo::Array<int> hits(queue(), n + 2);
            hits.fill(queue(), 0);
            count(queue(), hits.view(1, n));  // one past each end stays 0
            const auto host = hits.to_host(queue());
            for (std::size_t k = 0; k < n + 2; ++k)
                ASSERT_EQ(host[k], (k == 0 || k == n + 1) ? 0 : 1) << "items=" << items << " n=" << n << " k=" << k;
        }
        clalgo::Array<int> out(queue(), 5000);
        out.fill(queue(), -1);
        options.name = std::string("tiled_mark_") + items;
        clalgo::ElementwiseKernel mark(context(), "int *out", "out[i] = (int)(i * 2 + 1)", options);
        mark(queue(), clalgo::range(5, 4990, 3), out);
        const auto host = out.to_host(queue());
        for (std::size_t k = 0; k < host.size(); ++k) {
            const bool touched = k >= 5 && k < 4990 && (k - 5) % 3 == 0;
            ASSERT_EQ(host[k], touched ? int(k * 2 + 1) : -1) << "items=" << items << " k=" << k;
        }
    }
}

TEST(Elementwise, OneBufferPassedAsTwoArraysRunsTheKernelWithoutRestrict) {
    for (const char* items : {"4", ""}) {  // the tiles, then the device's own shape
        ForcedMapItems forced(items);
        clalgo::ElementwiseOptions options;
        options.name = std::string("alias_add") + (*items ? "_tiled" : "");
        clalgo::ElementwiseKernel add(context(), "const int *x, const int *y, int *z", "z[i] = x[i] + y[i]", options);
        EXPECT_NE(add.source().find("*restrict x"), std::string::npos);  // distinct buffers: the restrict program
        const std::size_t n = 5003;
        std::vector<int> host(n);
        std::iota(host.begin(), host.end(), -100);
        auto a = clalgo::to_device(queue(), host);
        auto b = clalgo::to_device(queue(), host);
        clalgo::Array<int> z(queue(), n);
        add(queue(), a, b, z);  // distinct
        auto got = z.to_host(queue());
        for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(got[k], 2 * host[k]) << k;
        add(queue(), b, b, z);  // one buffer as two arrays that are only read: the restrict program
        got = z.to_host(queue());
        for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(got[k], 2 * host[k]) << k;
        add(queue(), a, a, a);  // one buffer three times, in place: a = 2a
        add(queue(), a, b, a);  // a = 3 x host
        got = a.to_host(queue());
        for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(got[k], 3 * host[k]) << k;
        // views of one buffer that do not overlap: x the first half, z the second
        auto halves = clalgo::to_device(queue(), host);
        add(queue(), halves.view(0, n / 2), b.view(0, n / 2), halves.view(n / 2, n / 2));
        got = halves.to_host(queue());
        for (std::size_t k = 0; k < n / 2; ++k) ASSERT_EQ(got[n / 2 + k], 2 * host[k]) << k;
        for (std::size_t k = 0; k < n / 2; ++k) ASSERT_EQ(got[k], host[k]) << k;
        ASSERT_EQ(got[n - 1], host[n - 1]);
    }
}

TEST(Elementwise, UserRestrictIsKept) {
    clalgo::ElementwiseKernel copy(context(), "const float *restrict x, float *restrict y", "y[i] = x[i]");
    auto x = clalgo::to_device(queue(), std::vector<float>{1, 2, 3});
    clalgo::Array<float> y(queue(), 3);
    copy(queue(), x, y);
    EXPECT_EQ(y.to_host(queue()), (std::vector<float>{1, 2, 3}));
}
