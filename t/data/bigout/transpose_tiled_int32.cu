// A mutant of samples/transpose/transpose_tiled.cu (the mutation bench): the input offset in int32.
// Out-of-place transpose of a row-major rows x cols matrix through a 32x33 shared tile
// (the extra column keeps the column reads free of bank conflicts); 32x8 threads, 4 rows each.
#include <cuda_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose_tiled(float* __restrict__ odata, const float* __restrict__ idata, int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int x = blockIdx.x * TILE_DIM + threadIdx.x;  // input column
    int y = blockIdx.y * TILE_DIM + threadIdx.y;  // input row
#pragma unroll
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = idata[((y + j)) * cols + x];

    __syncthreads();

    x = blockIdx.y * TILE_DIM + threadIdx.x;  // output column = input row
    y = blockIdx.x * TILE_DIM + threadIdx.y;  // output row = input column
#pragma unroll
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < rows && y + j < cols) odata[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
