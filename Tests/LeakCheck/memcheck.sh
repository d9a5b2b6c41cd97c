#!/bin/sh
# Runs one reel command under valgrind's memcheck (make check-leaks). It fails when valgrind finds bytes
# definitely lost, and when a video encoder was still open as the process exited: a loss record allocated
# under x264_encoder_open (or x265's) means an encoder and its threads outlived its movie — an exit in the
# middle of such an encoder's teardown is how x264 memory once came out definitely lost in CI. (Records of
# the Swift runtime's caches can show Reel's own functions in their stacks, so those are not matched.)
# (A transcode's decoder is still open at exit, its threads idle: not checked.)
log=$(mktemp)
valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=9 --suppressions=Tests/valgrind.supp \
    --log-file="$log" "$@"
status=$?
cat "$log" >&2
if [ "$status" = 0 ] && grep -Eq "x26[45]_encoder_open" "$log"; then
    echo "check-leaks: a video encoder was still open when the process exited (its loss record is above): $*" >&2
    status=1
fi
rm -f "$log"
exit "$status"
