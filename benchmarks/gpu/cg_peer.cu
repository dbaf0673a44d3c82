// The CUDA peer of examples/cg: conjugate gradient on the 2-D Poisson matrix (5-point stencil, Dirichlet, n = g*g
// unknowns) the way NVIDIA's CUDA samples write it (cuSPARSE SpMV on a CSR matrix, cuBLAS dot/axpy/scal, the
// residual read back every iteration to test convergence), and a matrix-free variant (stencil kernel instead of the
// CSR SpMV).
// A fixed number of iterations (no early exit), best of 3 after a warm-up: time per iteration.
// Build: nvcc -O3 -arch=sm_90 -std=c++17 benchmarks/gpu/cg_peer.cu -o cg_peer -lcublas -lcusparse
#include <cublas_v2.h>
#include <cusparse.h>
#include <cuda_runtime.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { auto e = (x); if (e != 0) { std::printf("error %d at line %d\n", int(e), __LINE__); std::exit(1); } } while (0)

__global__ void stencil(int g, const double* x, double* y) {  // y = A x, matrix-free
    long i = blockIdx.x * long(blockDim.x) + threadIdx.x, n = long(g) * g;
    if (i >= n) return;
    int r = int(i / g), c = int(i % g);
    double v = 4.0 * x[i];
    if (c > 0) v -= x[i - 1];
    if (c < g - 1) v -= x[i + 1];
    if (r > 0) v -= x[i - g];
    if (r < g - 1) v -= x[i + g];
    y[i] = v;
}

int main() {
    const int iterations = 100;
    cublasHandle_t blas; CK(cublasCreate(&blas));
    cusparseHandle_t sparse; CK(cusparseCreate(&sparse));
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0)); std::printf("device %s\n", p.name);
    for (int g : {32, 64, 128, 256, 512, 1024, 2048, 4096}) {
        const int n = g * g;
        std::vector<int> rows(n + 1), cols; std::vector<double> vals; cols.reserve(5L * n); vals.reserve(5L * n);
        for (int i = 0; i < n; ++i) {
            rows[i] = int(cols.size()); int r = i / g, c = i % g;
            if (r > 0) { cols.push_back(i - g); vals.push_back(-1); }
            if (c > 0) { cols.push_back(i - 1); vals.push_back(-1); }
            cols.push_back(i); vals.push_back(4);
            if (c < g - 1) { cols.push_back(i + 1); vals.push_back(-1); }
            if (r < g - 1) { cols.push_back(i + g); vals.push_back(-1); }
        }
        rows[n] = int(cols.size()); const int nnz = rows[n];
        int *d_rows, *d_cols; double *d_vals, *x, *r, *pp, *Ap;
        CK(cudaMalloc(&d_rows, (n + 1) * 4)); CK(cudaMalloc(&d_cols, nnz * 4)); CK(cudaMalloc(&d_vals, nnz * 8));
        CK(cudaMalloc(&x, n * 8)); CK(cudaMalloc(&r, n * 8)); CK(cudaMalloc(&pp, n * 8)); CK(cudaMalloc(&Ap, n * 8));
        CK(cudaMemcpy(d_rows, rows.data(), (n + 1) * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d_cols, cols.data(), nnz * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d_vals, vals.data(), nnz * 8, cudaMemcpyHostToDevice));
        cusparseSpMatDescr_t A; cusparseDnVecDescr_t vp, vAp;
        CK(cusparseCreateCsr(&A, n, n, nnz, d_rows, d_cols, d_vals, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                             CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        CK(cusparseCreateDnVec(&vp, n, pp, CUDA_R_64F)); CK(cusparseCreateDnVec(&vAp, n, Ap, CUDA_R_64F));
        const double one = 1.0, zero = 0.0; size_t bytes = 0; void* buffer = nullptr;
        CK(cusparseSpMV_bufferSize(sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vp, &zero, vAp, CUDA_R_64F,
                                   CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
        CK(cudaMalloc(&buffer, bytes ? bytes : 1));
        std::vector<double> ones(n, 1.0);
        for (int free_matrix = 0; free_matrix < 2; ++free_matrix) {
            double best = 1e30, residual = 0;
            for (int round = 0; round < 4; ++round) {
                // x = 0, r = p = b = 1
                CK(cudaMemset(x, 0, n * 8L)); CK(cudaMemcpy(r, ones.data(), n * 8L, cudaMemcpyHostToDevice));
                CK(cudaMemcpy(pp, r, n * 8L, cudaMemcpyDeviceToDevice)); CK(cudaDeviceSynchronize());
                auto t0 = std::chrono::steady_clock::now();
                double rr; CK(cublasDdot(blas, n, r, 1, r, 1, &rr));
                for (int k = 0; k < iterations; ++k) {
                    if (free_matrix) stencil<<<(n + 255) / 256, 256>>>(g, pp, Ap);
                    else CK(cusparseSpMV(sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vp, &zero, vAp, CUDA_R_64F,
                                         CUSPARSE_SPMV_ALG_DEFAULT, buffer));
                    double pAp; CK(cublasDdot(blas, n, pp, 1, Ap, 1, &pAp));
                    double alpha = rr / pAp, minus_alpha = -alpha;
                    CK(cublasDaxpy(blas, n, &alpha, pp, 1, x, 1));
                    CK(cublasDaxpy(blas, n, &minus_alpha, Ap, 1, r, 1));
                    double rr_new; CK(cublasDdot(blas, n, r, 1, r, 1, &rr_new));   // read back: the convergence test
                    double beta = rr_new / rr; rr = rr_new;
                    CK(cublasDscal(blas, n, &beta, pp, 1));
                    CK(cublasDaxpy(blas, n, &one, r, 1, pp, 1));
                }
                CK(cudaDeviceSynchronize());
                double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                if (round > 0 && s < best) best = s;
                residual = std::sqrt(rr / n);
            }
            std::printf("%s g=%d n=%d: %.2f us/iteration (%d iterations), |r|/|b| %.3e\n",
                        free_matrix ? "cuda_cg_stencil" : "cuda_cg_cusparse", g, n, best / iterations * 1e6,
                        iterations, residual);
            std::fflush(stdout);
        }
        cusparseDestroySpMat(A); cusparseDestroyDnVec(vp); cusparseDestroyDnVec(vAp);
        cudaFree(buffer); cudaFree(d_rows); cudaFree(d_cols); cudaFree(d_vals); cudaFree(x); cudaFree(r); cudaFree(pp); cudaFree(Ap);
    }
}
