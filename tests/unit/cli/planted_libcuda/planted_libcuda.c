/* A stand-in for a libcuda.so.1 planted in an untrusted working folder
 * (tests/unit/cli/planted_libcuda_test.sh, which compiles it together with
 * a definition of every driver function the launcher's libraries import,
 * so that the loader would accept it): when anything loads it, its
 * constructor creates `planted_libcuda_loaded` in the current folder. The
 * launcher and its libraries must never load it: no run path of theirs may
 * name the current folder. */
#include <fcntl.h>
#include <unistd.h>

__attribute__((constructor)) static void planted_libcuda_loaded(void) {
  int fd = open("planted_libcuda_loaded", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) close(fd);
}
