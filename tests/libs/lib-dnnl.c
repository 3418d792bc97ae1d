/* lib-dnnl.c: Debian's oneDNN (built for libgomp) runs an f32 matmul and a
 * convolution through lib-check.h's calling contexts. oneDNN splits a
 * primitive into omp_get_max_threads() shares and each thread of the team it
 * forks runs its own: in a team smaller than planned, shares are never run
 * and their outputs stay as they were (zero here). */
#include <oneapi/dnnl/dnnl.h>

#include "lib-check.h"

enum { M = 67, K = 131, N = 93 };                                 /* matmul */
enum { CN = 2, IC = 8, OC = 16, IH = 15, IW = 13, KH = 3, KW = 3 }; /* conv, pad 1 */

static dnnl_engine_t engine;

#define DNNL(call)                                                                     \
    do {                                                                               \
        dnnl_status_t s_ = (call);                                                     \
        if (s_ != dnnl_success) {                                                      \
            fprintf(stderr, "lib-dnnl: %s failed (status %d)\n", #call, (int)s_);     \
            exit(2);                                                                   \
        }                                                                              \
    } while (0)

static dnnl_memory_t memory(int ndims, const dnnl_dims_t dims, dnnl_format_tag_t tag,
                            void *data, dnnl_memory_desc_t *md)
{
    dnnl_memory_t m;
    DNNL(dnnl_memory_desc_init_by_tag(md, ndims, dims, dnnl_f32, tag));
    DNNL(dnnl_memory_create(&m, md, engine, data));
    return m;
}

/* Run the primitive of op_desc with args, then free everything. */
static void run(const void *op_desc, dnnl_exec_arg_t *args, int nargs)
{
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t prim;
    dnnl_stream_t stream;
    DNNL(dnnl_primitive_desc_create(&pd, op_desc, NULL, engine, NULL));
    DNNL(dnnl_primitive_create(&prim, pd));
    DNNL(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    DNNL(dnnl_primitive_execute(prim, stream, nargs, args));
    DNNL(dnnl_stream_wait(stream));
    dnnl_stream_destroy(stream);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    for (int i = 0; i < nargs; i++)
        dnnl_memory_destroy(args[i].memory);
}

static uint64_t case_matmul(uint32_t seed)
{
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N);
    float *c = calloc((size_t)M * N, sizeof(float));
    lib_fill(a, NULL, (size_t)M * K, seed);
    lib_fill(b, NULL, (size_t)K * N, seed + 100);
    dnnl_memory_desc_t a_md, b_md, c_md;
    dnnl_dims_t ad = {M, K}, bd = {K, N}, cd = {M, N};
    dnnl_exec_arg_t args[3] = {
        {DNNL_ARG_SRC, memory(2, ad, dnnl_ab, a, &a_md)},
        {DNNL_ARG_WEIGHTS, memory(2, bd, dnnl_ab, b, &b_md)},
        {DNNL_ARG_DST, memory(2, cd, dnnl_ab, c, &c_md)},
    };
    dnnl_matmul_desc_t desc;
    DNNL(dnnl_matmul_desc_init(&desc, &a_md, &b_md, NULL, &c_md));
    run(&desc, args, 3);
    lib_check_gemm_float("matmul", a, b, c, M, N, K, 1e-5);
    uint64_t h = lib_hash(c, sizeof(float) * M * N);
    free(a), free(b), free(c);
    return h;
}

static uint64_t case_conv(uint32_t seed)
{
    size_t ns = (size_t)CN * IC * IH * IW, nw = (size_t)OC * IC * KH * KW;
    size_t nd = (size_t)CN * OC * IH * IW;
    float *src = malloc(sizeof(float) * ns), *wei = malloc(sizeof(float) * nw);
    float *dst = calloc(nd, sizeof(float));
    lib_fill(src, NULL, ns, seed);
    lib_fill(wei, NULL, nw, seed + 100);
    dnnl_memory_desc_t s_md, w_md, d_md;
    dnnl_dims_t sd = {CN, IC, IH, IW}, wd = {OC, IC, KH, KW}, dd = {CN, OC, IH, IW};
    dnnl_exec_arg_t args[3] = {
        {DNNL_ARG_SRC, memory(4, sd, dnnl_nchw, src, &s_md)},
        {DNNL_ARG_WEIGHTS, memory(4, wd, dnnl_oihw, wei, &w_md)},
        {DNNL_ARG_DST, memory(4, dd, dnnl_nchw, dst, &d_md)},
    };
    dnnl_dims_t strides = {1, 1}, pad = {1, 1};
    dnnl_convolution_desc_t desc;
    DNNL(dnnl_convolution_forward_desc_init(&desc, dnnl_forward_inference,
                                            dnnl_convolution_direct, &s_md, &w_md, NULL, &d_md,
                                            strides, pad, pad));
    run(&desc, args, 3);
    int bad = 0;
    for (int n = 0; n < CN && !bad; n++)
        for (int o = 0; o < OC && !bad; o++)
            for (int y = 0; y < IH && !bad; y++)
                for (int x = 0; x < IW; x++) {
                    double want = 0, scale = 0;
                    for (int i = 0; i < IC; i++)
                        for (int ky = 0; ky < KH; ky++)
                            for (int kx = 0; kx < KW; kx++) {
                                int sy = y + ky - 1, sx = x + kx - 1;
                                if (sy < 0 || sy >= IH || sx < 0 || sx >= IW)
                                    continue;
                                double p = (double)src[((n * IC + i) * IH + sy) * IW + sx] *
                                           wei[((o * IC + i) * KH + ky) * KW + kx];
                                want += p;
                                scale += fabs(p);
                            }
                    float got = dst[((n * OC + o) * IH + y) * IW + x];
                    if (!lib_close(got, want, scale, 1e-5)) {
                        char d[128];
                        snprintf(d, sizeof d, "dst[%d][%d][%d][%d] = %g, reference %g", n, o, y,
                                 x, got, want);
                        lib_fail("convolution", d);
                        bad = 1;
                        break;
                    }
                }
    uint64_t h = lib_hash(dst, sizeof(float) * nd);
    free(src), free(wei), free(dst);
    return h;
}

int main(void)
{
    DNNL(dnnl_engine_create(&engine, dnnl_cpu, 0));
    run_cases("matmul", case_matmul);
    run_cases("convolution", case_conv);
    dnnl_engine_destroy(engine);
    return lib_summary("lib-dnnl");
}
