/* emu_lazy.h — buffers too large to hold: address space reserved without
 * memory (mmap PROT_NONE, MAP_NORESERVE), filled chunk by chunk on first
 * touch by a caller's pure function of the byte offset.
 *
 * The engine reads and writes such a buffer as plain bytes: the first access
 * to a chunk faults, a SIGSEGV handler (installed on the first emu_lazy_new,
 * chained to the previous handler for every fault outside a reservation)
 * makes the chunk readable and writable and fills it. So the SIMT engine's
 * hot path carries no check at all. At most EMU_LAZY_RESIDENT bytes stay
 * filled: past that the oldest chunk is dropped (its memory returned) and
 * refilled when touched again — the fill is a pure function, so the values
 * come back the same; stores into a dropped chunk are lost (fine for the
 * inputs this is for; a kernel that writes its inputs is not sampled this
 * way).
 *
 * Single-threaded use per reservation (the engine is); up to 64 live
 * reservations per process. Ownership: emu_lazy_free releases the address
 * space; the bytes pointer dies with it. */
#ifndef DG_EMU_LAZY_H
#define DG_EMU_LAZY_H
#include "util.h"

#define EMU_LAZY_CHUNK ((int64_t)1 << 12)          /* 4 KiB: a page */
#define EMU_LAZY_RESIDENT ((int64_t)1 << 26)       /* 64 MiB (16384 chunks) filled at most */

/* Fills dst[0..n) with the bytes at offsets off..off+n of the buffer. Runs
 * inside the signal handler: pure computation only (no allocation, no I/O). */
typedef void (*emu_lazy_fill_fn)(void *ud, int64_t off, uint8_t *dst, int64_t n);

typedef struct emu_lazy emu_lazy;
/* NULL with *err (caller frees) when the address space cannot be reserved. */
emu_lazy *emu_lazy_new(int64_t bytes, emu_lazy_fill_fn fill, void *ud, char **err);
uint8_t *emu_lazy_bytes(const emu_lazy *z);
int64_t emu_lazy_size(const emu_lazy *z);
int64_t emu_lazy_fills(const emu_lazy *z);      /* chunk fills so far (refills included) */
int64_t emu_lazy_resident(const emu_lazy *z);   /* chunks filled now */
/* At most `chunks` (>= 2) chunks filled at once from now on (tests; the
 * default is EMU_LAZY_RESIDENT bytes). Call before the first touch. */
void emu_lazy_limit(emu_lazy *z, int64_t chunks);
void emu_lazy_free(emu_lazy *z);                /* NULL is fine */

#endif
