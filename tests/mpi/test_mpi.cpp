// clalgo::mpi over 1 to 4 ranks (ctest runs it with mpirun -np 1, 2, 3 and 4): reductions, copy_if and scans over
// index ranges split across the ranks, against the host, with even and uneven weights, ranks with an empty share,
// and a non-commutative operator. Every rank runs every test; the process fails where any rank's test does.
#include <clalgo/clalgo.hpp>
#include <clalgo/multi/mpi.hpp>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

/// An affine map x -> mul * x + add (mod 2^64); composing them is associative but not commutative.
struct Affine {
    std::uint64_t mul, add;
    bool operator==(const Affine& other) const { return mul == other.mul && add == other.add; }
};

Affine then(Affine a, Affine b) { return {a.mul * b.mul, b.mul * a.add + b.add}; }
Affine affine_at(std::int64_t i) { return {std::uint64_t(i % 5 + 1), std::uint64_t(i % 7)}; }

clalgo::mpi::Ranks& ranks() {
    static clalgo::mpi::Ranks ranks(MPI_COMM_WORLD);
    return ranks;
}

/// Weightings for the current number of ranks: even, uneven, and rank 0 or the last rank (or both of 1, 3) empty.
std::vector<std::vector<double>> weightings() {
    const int size = ranks().size();
    std::vector<std::vector<double>> all{std::vector<double>(size, 1.0)};
    std::vector<double> uneven, first_empty(size, 1.0), last_empty(size, 1.0);
    for (int r = 0; r < size; ++r) uneven.push_back(1 + 3 * r);
    all.push_back(uneven);
    if (size > 1) {
        first_empty[0] = 0;
        last_empty[size - 1] = 0;
        all.push_back(first_empty);
        all.push_back(last_empty);
    }
    if (size > 2) {
        std::vector<double> middle(size, 0.0);
        middle[1] = 1;  // only rank 1 works
        all.push_back(middle);
    }
    return all;
}

TEST(Mpi, ReducesLikeTheHostForEveryWeighting) {
    const clalgo::ReductionKernel<std::int64_t> sum(ranks().context(), "0", "a + b", "(i % 1000) * (i & 3)", "");
    for (const auto& weights : weightings()) {
        ranks().set_weights(weights);
        for (const clalgo::IndexRange indices : {clalgo::IndexRange{0, 0, 1}, clalgo::IndexRange{0, 1, 1},
                                                 clalgo::IndexRange{3, 300003, 1}, clalgo::IndexRange{300000, -5, -3}}) {
            std::int64_t expected = 0;
            for (std::int64_t k = 0; k < indices.size(); ++k) {
                const std::int64_t i = indices.start + k * indices.step;
                expected += (i % 1000) * (i & 3);
            }
            EXPECT_EQ(ranks().reduce(sum, indices), expected) << "n " << indices.size();
        }
    }
}

TEST(Mpi, CalibratesEveryRanksWeightsAlike) {
    const clalgo::ReductionKernel<std::int64_t> sum(ranks().context(), "0", "a + b", "i & 1", "");
    ranks().calibrate([&](const clalgo::Queue& queue, clalgo::IndexRange indices) { sum(queue, indices); }, 1 << 18);
    ASSERT_EQ(ranks().weights().size(), std::size_t(ranks().size()));
    for (double weight : ranks().weights()) EXPECT_GT(weight, 0);
    // every rank holds the same weights: rank 0's, broadcast, compare equal
    std::vector<double> root = ranks().weights();
    MPI_Bcast(root.data(), int(root.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    EXPECT_EQ(root, ranks().weights());
    EXPECT_EQ(ranks().reduce(sum, clalgo::range(0, 1000001)), 500000);
}

TEST(Mpi, CountsOverARangePast2To32) {
    ranks().set_weights(std::vector<double>(ranks().size(), 1.0));
    const clalgo::ReductionKernel<std::int64_t> count(ranks().context(), "0", "a + b", "i % 7 == 3 ? 1 : 0", "");
    const std::int64_t start = 5, stop = start + (std::int64_t(1) << 32) + 12345;
    auto below = [](std::int64_t x) { return x <= 3 ? 0 : (x - 3 + 6) / 7; };
    EXPECT_EQ(ranks().reduce(count, clalgo::range(start, stop)), below(stop) - below(start));
}

TEST(Mpi, CombinesANonCommutativeOperatorInRankOrder) {
    // The ranks' partials must be composed in rank order. Within a rank a ReductionKernel may combine its items in
    // any order (a GPU does), so each rank's partial is its own kernel's over its share, and the host composes
    // those in rank order.
    const clalgo::ReductionKernel<Affine> compose(ranks().context(), "(affine){1, 0}",
                                                  "(affine){a.mul * b.mul, b.mul * a.add + b.add}",
                                                  "(affine){(ulong)(i % 5 + 1), (ulong)(i % 7)}", "");
    for (const auto& weights : weightings()) {
        ranks().set_weights(weights);
        const std::int64_t n = 2 * ranks().size() + 1;
        const clalgo::IndexRange mine = ranks().share(clalgo::range(10, 10 + n));
        const Affine partial = compose(ranks().queue(), mine);
        std::vector<Affine> partials(std::size_t(ranks().size()));
        MPI_Allgather(&partial, int(sizeof(Affine)), MPI_BYTE, partials.data(), int(sizeof(Affine)), MPI_BYTE,
                      ranks().communicator());
        Affine expected{1, 0};
        for (const Affine& each : partials) expected = then(expected, each);  // an empty share's is the identity
        EXPECT_EQ(ranks().reduce(compose, clalgo::range(10, 10 + n)), expected);
    }
}

TEST(Mpi, CopyIfPlacesEachRanksItemsAfterTheRanksBefore) {
    const std::int64_t high = std::int64_t(1) << 36;
    for (const auto& weights : weightings()) {
        ranks().set_weights(weights);
        const clalgo::IndexRange indices{high, high + 100003, 1};
        auto mine = ranks().copy_if(indices, "i % 7 == 0 || i % 11 == 3");
        std::vector<std::int64_t> expected;
        for (std::int64_t i = indices.start; i < indices.stop; ++i)
            if (i % 7 == 0 || i % 11 == 3) expected.push_back(i);
        EXPECT_EQ(mine.total, std::int64_t(expected.size()));
        ASSERT_LE(mine.offset + mine.count, mine.total);
        const auto host = mine.values.view(0, std::size_t(mine.count)).to_host(ranks().queue());
        EXPECT_EQ(host, std::vector<std::int64_t>(expected.begin() + mine.offset,
                                                  expected.begin() + mine.offset + mine.count));
    }
}

TEST(Mpi, ScansANonCommutativeOperatorAcrossRanks) {
    const std::int64_t first = (std::int64_t(1) << 33) + 5, n = 30001;
    // start: the first index of the rank's share (clalgo::share_start), where its own arrays begin
    const clalgo::mpi::ScanKernel<Affine> scan(ranks(), "affine *inclusive, affine *exclusive, long start",
                                               "(affine){(ulong)(i % 5 + 1), (ulong)(i % 7)}",
                                               "(affine){a.mul * b.mul, b.mul * a.add + b.add}", "(affine){1, 0}",
                                               "inclusive[i - start] = item; exclusive[i - start] = prev_item");
    std::vector<Affine> prefix{{1, 0}};  // prefix[k]: the composition of the first k maps
    for (std::int64_t k = 0; k < n; ++k) prefix.push_back(then(prefix.back(), affine_at(first + k)));
    for (const auto& weights : weightings()) {
        ranks().set_weights(weights);
        const clalgo::IndexRange mine = ranks().share(clalgo::range(first, first + n));
        clalgo::Array<Affine> inclusive(ranks().context(), std::max<std::int64_t>(1, mine.size())),
            exclusive(ranks().context(), std::max<std::int64_t>(1, mine.size()));
        scan(clalgo::range(first, first + n), inclusive, exclusive, clalgo::share_start);
        if (mine.size() == 0) continue;
        const auto in = inclusive.to_host(ranks().queue()), ex = exclusive.to_host(ranks().queue());
        std::int64_t wrong = 0;
        for (std::int64_t k = 0; k < mine.size(); ++k) {
            const std::int64_t global = mine.start - first + k;
            wrong += !(ex[k] == prefix[global]) + !(in[k] == prefix[global + 1]);
        }
        EXPECT_EQ(wrong, 0) << "rank " << ranks().rank();
    }
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    ::testing::InitGoogleTest(&argc, argv);
    clalgo::register_struct<Affine>("affine", "typedef struct { ulong mul, add; } affine;",
                                    {CLALGO_FIELD(Affine, mul), CLALGO_FIELD(Affine, add)});
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) delete ::testing::UnitTest::GetInstance()->listeners().Release(
        ::testing::UnitTest::GetInstance()->listeners().default_result_printer());
    int failed = RUN_ALL_TESTS() != 0 ? 1 : 0, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    ranks();  // keep the queue alive until here
    MPI_Finalize();
    return any;
}
