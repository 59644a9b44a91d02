/* lazy.c — tests of the lazily filled reservations (emu_lazy.h). Not run
 * under valgrind: memcheck reports the first touch of a reserved chunk (the
 * fault the handler turns into a fill) as an invalid read. ASan runs it. */
#include "emu_lazy.h"
#include "fuzz.h"
#include "../tap.h"
#include <math.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* byte at offset o: a pure function, as the fuzzer's fill is */
static uint8_t pat(int64_t o) { return (uint8_t)(o * 131 + (o >> 16) * 7 + 1); }

static void fill_pat(void *ud, int64_t off, uint8_t *dst, int64_t n)
{
  (*(int *)ud)++;
  for (int64_t i = 0; i < n; i++) dst[i] = pat(off + i);
}

/* Address space of this process in KiB (VmSize), or -1 without /proc. */
static long long vm_kib(void)
{
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long long v = -1;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmSize:", 7)) v = atoll(line + 7);
  if (f) fclose(f);
  return v;
}

static void test_lazy(void)
{
  int calls = 0;
  char *err = NULL;
  int64_t big = (int64_t)9 << 30;           /* 9 GiB: more than the CI machine can spare */
  long long vm0 = vm_kib();
  emu_lazy *z = emu_lazy_new(big, fill_pat, &calls, &err);
  long long vm1 = vm_kib();
  if (!ok(z != NULL, "9 GiB reserved without memory (%s)", err ? err : "ok")) { free(err); return; }
  uint8_t *b = emu_lazy_bytes(z);
  is_int(emu_lazy_fills(z), 0, "nothing filled before the first touch");
  int64_t offs[] = { 0, 1, EMU_LAZY_CHUNK - 1, EMU_LAZY_CHUNK, ((int64_t)1 << 31) + 5, big - 1, big / 3 };
  int good = 1;
  for (size_t i = 0; i < sizeof offs / sizeof *offs; i++) good &= b[offs[i]] == pat(offs[i]);
  ok(good, "every touched byte holds the fill's value, past 2^31 and at the last byte");
  is_int(emu_lazy_fills(z), 5, "one fill per distinct chunk touched");
  is_int(calls, 5, "the fill ran once per chunk");
  b[12345] = 0xee;
  is_int(b[12345], 0xee, "a filled chunk is writable and keeps the store");
  is_int(b[12346], pat(12346), "its neighbours keep their values");
  uint32_t w;                               /* an access straddling two chunks */
  memcpy(&w, b + 3 * EMU_LAZY_CHUNK - 2, 4);
  uint32_t want = (uint32_t)pat(3 * EMU_LAZY_CHUNK - 2) | (uint32_t)pat(3 * EMU_LAZY_CHUNK - 1) << 8 |
                  (uint32_t)pat(3 * EMU_LAZY_CHUNK) << 16 | (uint32_t)pat(3 * EMU_LAZY_CHUNK + 1) << 24;
  ok(w == want, "a 4-byte load across a chunk boundary fills both chunks");
  is_int(emu_lazy_fills(z), 7, "two more chunks");
  emu_lazy_free(z);
  long long vm2 = vm_kib();
  ok(vm0 < 0 || (vm1 - vm0 >= 9LL << 20 && llabs(vm2 - vm0) < 1024),
     "the reservation is address space only and is released (VmSize %lld -> %lld -> %lld KiB)", vm0, vm1, vm2);

  /* bounded residency: the oldest chunk is dropped and comes back the same */
  calls = 0;
  z = emu_lazy_new(16 * EMU_LAZY_CHUNK + 100, fill_pat, &calls, &err);
  emu_lazy_limit(z, 2);
  b = emu_lazy_bytes(z);
  good = b[10] == pat(10) && b[EMU_LAZY_CHUNK + 10] == pat(EMU_LAZY_CHUNK + 10) &&
         b[2 * EMU_LAZY_CHUNK] == pat(2 * EMU_LAZY_CHUNK);
  ok(good, "three chunks read under a limit of two");
  is_int(emu_lazy_resident(z), 2, "only two stay filled");
  ok(b[11] == pat(11), "the dropped chunk reads the same after a refill");
  is_int(emu_lazy_fills(z), 4, "the refill counts");
  ok(b[16 * EMU_LAZY_CHUNK + 99] == pat(16 * EMU_LAZY_CHUNK + 99), "the short last chunk is filled up to the size");
  emu_lazy_free(z);
  emu_lazy_free(NULL);

  /* a fault outside every reservation still kills the process */
  z = emu_lazy_new(EMU_LAZY_CHUNK, fill_pat, &calls, &err);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    /* a page no reservation owns (not NULL: UBSan would stop at the null load first) */
    volatile int *stray = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    alarm(20);
    (void)*stray;
    _exit(0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  ok((WIFSIGNALED(st) && WTERMSIG(st) != SIGALRM) || (WIFEXITED(st) && WEXITSTATUS(st) != 0),
     "a stray fault outside every reservation is not swallowed by the handler");
  ok(emu_lazy_bytes(z)[7] == pat(7), "the reservation still fills after that (in this process)");
  emu_lazy_free(z);
  ok(emu_lazy_new(-1, fill_pat, &calls, &err) == NULL && err, "a negative size is refused with a reason");
  free(err);
}

int main(void)
{
  test_lazy();
  return tap_done();
}
