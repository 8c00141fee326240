// Direct-launch style, kernel and host program in one .cpp (as in the public "kernel direct
// call" samples): an extern "C" kernel, a <<<>>> launch wrapper and a host main() with
// AscendCL calls, none of it behind ASCENDC_CPU_DEBUG guards.  The kernel computes
// z = x * scale + y on float data, tiles of TILE elements sized from AscendC platform
// constants, and checks its arguments with ASSERT in Init.
#include <cstdio>
#include "acl/acl.h"
#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;
// a tile is a whole number of 32 B blocks and a quarter of the usable vector UB at most
constexpr uint32_t TILE = 64 * AscendC::ONE_BLK_SIZE / sizeof(float);
static_assert(TILE * sizeof(float) * BUFFER_NUM * 3 <= static_cast<uint32_t>(AscendC::TOTAL_VEC_LOCAL_SIZE),
              "the queues fit in the vector UB");
static_assert(AscendC::TOTAL_UB_SIZE == 192 * 1024, "Atlas A2 UB");

class KernelAxpyDirect {
public:
    __aicore__ inline KernelAxpyDirect() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, float scale)
    {
        ASSERT(AscendC::GetBlockNum() != 0);
        ASSERT(totalLength % (AscendC::GetBlockNum() * TILE) == 0);
        blockLength = totalLength / AscendC::GetBlockNum();
        this->scale = scale;
        xGm.SetGlobalBuffer((__gm__ float *)x + blockLength * AscendC::GetBlockIdx(), blockLength);
        yGm.SetGlobalBuffer((__gm__ float *)y + blockLength * AscendC::GetBlockIdx(), blockLength);
        zGm.SetGlobalBuffer((__gm__ float *)z + blockLength * AscendC::GetBlockIdx(), blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, TILE * sizeof(float));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, TILE * sizeof(float));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, TILE * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < blockLength / TILE; i++) {
            AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
            AscendC::LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
            AscendC::DataCopy(xLocal, xGm[i * TILE], TILE);
            AscendC::DataCopy(yLocal, yGm[i * TILE], TILE);
            inQueueX.EnQue(xLocal);
            inQueueY.EnQue(yLocal);

            xLocal = inQueueX.DeQue<float>();
            yLocal = inQueueY.DeQue<float>();
            AscendC::LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
            AscendC::Muls(zLocal, xLocal, scale, TILE);
            AscendC::Add(zLocal, zLocal, yLocal, TILE);
            outQueueZ.EnQue<float>(zLocal);
            inQueueX.FreeTensor(xLocal);
            inQueueY.FreeTensor(yLocal);

            zLocal = outQueueZ.DeQue<float>();
            AscendC::DataCopy(zGm[i * TILE], zLocal, TILE);
            outQueueZ.FreeTensor(zLocal);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQueueZ;
    AscendC::GlobalTensor<float> xGm, yGm, zGm;
    uint32_t blockLength = 0;
    float scale = 0.0f;
};

extern "C" __global__ __aicore__ void axpy_direct(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, float scale)
{
    KernelAxpyDirect op;
    op.Init(x, y, z, totalLength, scale);
    op.Process();
}

// ---- host side (compiled by the simulator, never run) ----
void axpy_direct_do(uint32_t blockDim, void *stream, uint8_t *x, uint8_t *y, uint8_t *z, uint32_t n, float scale)
{
    axpy_direct<<<blockDim, nullptr, stream>>>(x, y, z, n, scale);
}

#define CHECK_ACL(x)                                                                    \
    do {                                                                                \
        aclError __ret = x;                                                             \
        if (__ret != ACL_ERROR_NONE) {                                                  \
            std::fprintf(stderr, "%s:%d aclError:%d\n", __FILE__, __LINE__, __ret);     \
        }                                                                               \
    } while (0)

int32_t main(int32_t argc, char *argv[])
{
    (void)argc;
    (void)argv;
    uint32_t blockDim = 8;
    uint32_t n = blockDim * 4 * TILE;
    size_t bytes = n * sizeof(float);
    int32_t deviceId = 0;
    CHECK_ACL(aclInit(nullptr));
    CHECK_ACL(aclrtSetDevice(deviceId));
    aclrtStream stream = nullptr;
    CHECK_ACL(aclrtCreateStream(&stream));

    uint8_t *xHost, *yHost, *zHost, *xDevice, *yDevice, *zDevice;
    CHECK_ACL(aclrtMallocHost((void **)(&xHost), bytes));
    CHECK_ACL(aclrtMallocHost((void **)(&yHost), bytes));
    CHECK_ACL(aclrtMallocHost((void **)(&zHost), bytes));
    CHECK_ACL(aclrtMalloc((void **)&xDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc((void **)&yDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc((void **)&zDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMemcpy(xDevice, bytes, xHost, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ACL(aclrtMemcpy(yDevice, bytes, yHost, bytes, ACL_MEMCPY_HOST_TO_DEVICE));

    axpy_direct<<<blockDim, nullptr, stream>>>(xDevice, yDevice, zDevice,
                                               n, 2.0f);
    CHECK_ACL(aclrtSynchronizeStream(stream));

    CHECK_ACL(aclrtMemcpy(zHost, bytes, zDevice, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_ACL(aclrtFree(xDevice));
    CHECK_ACL(aclrtFree(yDevice));
    CHECK_ACL(aclrtFree(zDevice));
    CHECK_ACL(aclrtFreeHost(xHost));
    CHECK_ACL(aclrtFreeHost(yHost));
    CHECK_ACL(aclrtFreeHost(zHost));
    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtResetDevice(deviceId));
    CHECK_ACL(aclFinalize());
    return 0;
}
