/* emu_lazy.c — lazily filled reservations (see emu_lazy.h): the mmap, the
 * SIGSEGV handler that fills a chunk on first touch, and the FIFO that keeps
 * the filled memory bounded. */
#define _GNU_SOURCE
#include "emu_lazy.h"
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

struct emu_lazy {
  uint8_t *base;
  int64_t size, mapped;        /* asked for; reserved (a multiple of the chunk) */
  emu_lazy_fill_fn fill;
  void *ud;
  int64_t *ring;               /* filled chunks, oldest first (FIFO of cap entries) */
  int64_t cap, head, count;
  int64_t fills;
};

#define MAX_LIVE 64
static emu_lazy *volatile live[MAX_LIVE];
static struct sigaction prev_segv;
static volatile sig_atomic_t installed;

static void drop_oldest(emu_lazy *z)
{
  int64_t c = z->ring[z->head];
  z->head = (z->head + 1) % z->cap;
  z->count--;
  /* a fresh mapping in place (not madvise + mprotect): it merges with the
   * reserved neighbours, so dropped chunks do not pile up kernel mappings
   * until mprotect fails (vm.max_map_count) */
  mmap(z->base + c * EMU_LAZY_CHUNK, (size_t)EMU_LAZY_CHUNK, PROT_NONE,
       MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
}

/* Fills the chunk holding addr if it lies in a reservation. */
static bool fill_at(uintptr_t addr)
{
  for (int i = 0; i < MAX_LIVE; i++) {
    emu_lazy *z = live[i];
    if (!z || addr < (uintptr_t)z->base || addr >= (uintptr_t)z->base + (uintptr_t)z->mapped) continue;
    int64_t c = (int64_t)(addr - (uintptr_t)z->base) / EMU_LAZY_CHUNK;
    if (z->count == z->cap) drop_oldest(z);
    uint8_t *p = z->base + c * EMU_LAZY_CHUNK;
    if (mprotect(p, (size_t)EMU_LAZY_CHUNK, PROT_READ | PROT_WRITE)) {
      /* out of kernel mappings: give back half of the filled chunks, once */
      for (int64_t k = z->count / 2; k > 0; k--) drop_oldest(z);
      if (mprotect(p, (size_t)EMU_LAZY_CHUNK, PROT_READ | PROT_WRITE)) return false;
    }
    int64_t off = c * EMU_LAZY_CHUNK, n = z->size - off < EMU_LAZY_CHUNK ? z->size - off : EMU_LAZY_CHUNK;
    if (n > 0) z->fill(z->ud, off, p, n);
    z->ring[(z->head + z->count) % z->cap] = c;
    z->count++;
    z->fills++;
    return true;
  }
  return false;
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
  int saved = errno;
  if (fill_at((uintptr_t)si->si_addr)) {
    errno = saved;
    return;                      /* the faulting access runs again, now on filled memory */
  }
  /* not ours: give the signal back to whoever had it; returning re-runs the
   * access, which faults again into that handler (or the default action) */
  sigaction(SIGSEGV, &prev_segv, NULL);
  installed = 0;
  (void)sig, (void)uc;
  errno = saved;
}

static bool install(char **err)
{
  if (installed) return true;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSEGV, &sa, &prev_segv)) {
    *err = dg_printf("cannot install the fault handler for lazy buffers: %s", strerror(errno));
    return false;
  }
  installed = 1;
  return true;
}

emu_lazy *emu_lazy_new(int64_t bytes, emu_lazy_fill_fn fill, void *ud, char **err)
{
  *err = NULL;
  if (bytes < 0 || bytes > ((int64_t)1 << 40)) {
    *err = dg_printf("a lazy buffer of %lld bytes is out of range", (long long)bytes);
    return NULL;
  }
  int slot = -1;
  for (int i = 0; i < MAX_LIVE && slot < 0; i++) if (!live[i]) slot = i;
  if (slot < 0) {
    *err = dg_printf("more than %d lazy buffers at once", MAX_LIVE);
    return NULL;
  }
  if (!install(err)) return NULL;
  int64_t mapped = (bytes + EMU_LAZY_CHUNK - 1) / EMU_LAZY_CHUNK * EMU_LAZY_CHUNK;
  if (!mapped) mapped = EMU_LAZY_CHUNK;
  void *p = mmap(NULL, (size_t)mapped, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    *err = dg_printf("cannot reserve %lld bytes of address space: %s", (long long)mapped, strerror(errno));
    return NULL;
  }
  emu_lazy *z = dg_calloc(1, sizeof *z);
  z->base = p;
  z->size = bytes;
  z->mapped = mapped;
  z->fill = fill;
  z->ud = ud;
  z->cap = EMU_LAZY_RESIDENT / EMU_LAZY_CHUNK;
  if (z->cap > mapped / EMU_LAZY_CHUNK) z->cap = mapped / EMU_LAZY_CHUNK;
  z->ring = dg_malloc(sizeof *z->ring * (size_t)z->cap);
  live[slot] = z;
  return z;
}

uint8_t *emu_lazy_bytes(const emu_lazy *z) { return z->base; }
int64_t emu_lazy_size(const emu_lazy *z) { return z->size; }
int64_t emu_lazy_fills(const emu_lazy *z) { return z->fills; }
int64_t emu_lazy_resident(const emu_lazy *z) { return z->count; }

void emu_lazy_limit(emu_lazy *z, int64_t chunks)
{
  if (z->count || chunks < 2 || chunks > z->cap) return;
  z->cap = chunks;
}

void emu_lazy_free(emu_lazy *z)
{
  if (!z) return;
  for (int i = 0; i < MAX_LIVE; i++) if (live[i] == z) live[i] = NULL;
  munmap(z->base, (size_t)z->mapped);
  free(z->ring);
  free(z);
}
