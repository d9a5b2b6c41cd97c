// An LD_PRELOAD shim for tests: logs every write, truncation and sync that a process makes to one file, so a
// test can replay the file's life and check every state a crash or a power cut could leave (the writes in
// order, cut after each one, and without the writes no sync has made durable). Nothing in Reel knows of it.
//
//   REEL_WRITE_LOG=/path/log REEL_WRITE_LOG_TARGET=/path/movie.mov LD_PRELOAD=writelog.so reel record ...
//
// Each record: one byte ('W' write, 'T' truncate, 'S' sync), offset and length as little-endian u64, then
// for 'W' the bytes written. Records are appended with one write(2) each (O_APPEND), so threads interleave
// whole records.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static int (*real_ftruncate)(int, off_t);
static int (*real_fdatasync)(int);
static int (*real_fsync)(int);

static void resolve(void) {
    if (real_write) return;
    real_pwrite = dlsym(RTLD_NEXT, "pwrite64");
    real_ftruncate = dlsym(RTLD_NEXT, "ftruncate64");
    real_fdatasync = dlsym(RTLD_NEXT, "fdatasync");
    real_fsync = dlsym(RTLD_NEXT, "fsync");
    real_write = dlsym(RTLD_NEXT, "write");
}

static int is_target(int fd) {
    const char *target = getenv("REEL_WRITE_LOG_TARGET");
    if (!target || fd < 0) return 0;
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t length = readlink(link, path, sizeof path - 1);
    if (length <= 0) return 0;
    path[length] = 0;
    return strcmp(path, target) == 0;
}

static void record(char op, uint64_t offset, uint64_t length, const void *bytes) {
    const char *log = getenv("REEL_WRITE_LOG");
    if (!log) return;
    size_t size = 17 + (op == 'W' ? length : 0);
    unsigned char *buffer = malloc(size);
    if (!buffer) abort();
    buffer[0] = (unsigned char)op;
    memcpy(buffer + 1, &offset, 8);
    memcpy(buffer + 9, &length, 8);
    if (op == 'W') memcpy(buffer + 17, bytes, length);
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0 || real_write(fd, buffer, size) != (ssize_t)size) abort();
    close(fd);
    free(buffer);
}

ssize_t write(int fd, const void *bytes, size_t count) {
    resolve();
    if (!is_target(fd)) return real_write(fd, bytes, count);
    off_t offset = lseek(fd, 0, SEEK_CUR);
    ssize_t written = real_write(fd, bytes, count);
    if (written > 0) record('W', (uint64_t)offset, (uint64_t)written, bytes);
    return written;
}

static ssize_t logged_pwrite(int fd, const void *bytes, size_t count, off_t offset) {
    resolve();
    ssize_t written = real_pwrite(fd, bytes, count, offset);
    if (written > 0 && is_target(fd)) record('W', (uint64_t)offset, (uint64_t)written, bytes);
    return written;
}
ssize_t pwrite(int fd, const void *bytes, size_t count, off_t offset) { return logged_pwrite(fd, bytes, count, offset); }
ssize_t pwrite64(int fd, const void *bytes, size_t count, off_t offset) { return logged_pwrite(fd, bytes, count, offset); }

static int logged_ftruncate(int fd, off_t length) {
    resolve();
    int result = real_ftruncate(fd, length);
    if (result == 0 && is_target(fd)) record('T', (uint64_t)length, 0, NULL);
    return result;
}
int ftruncate(int fd, off_t length) { return logged_ftruncate(fd, length); }
int ftruncate64(int fd, off_t length) { return logged_ftruncate(fd, length); }

int fdatasync(int fd) {
    resolve();
    int result = real_fdatasync(fd);
    if (result == 0 && is_target(fd)) record('S', 0, 0, NULL);
    return result;
}

int fsync(int fd) {
    resolve();
    int result = real_fsync(fd);
    if (result == 0 && is_target(fd)) record('S', 0, 0, NULL);
    return result;
}
