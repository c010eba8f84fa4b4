/*
 * The nice value of the calling thread, for dev.cairn.store.ThreadPriority: the JDK has no call that
 * sets one thread's scheduling priority (Thread.setPriority does nothing on Linux without a JVM flag
 * given at launch). On Linux a thread id is a valid "process" for setpriority(2), and the nice value is
 * per thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jni.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* 0 when the calling thread now runs at `nice`, otherwise the errno (EACCES/EPERM: raising it needs
 * root or CAP_SYS_NICE). */
JNIEXPORT jint JNICALL Java_dev_cairn_store_ThreadPriority_setCurrentThreadNice(JNIEnv *env, jclass cls, jint nice) {
  (void) env;
  (void) cls;
  id_t tid = (id_t) syscall(SYS_gettid);
  return setpriority(PRIO_PROCESS, tid, (int) nice) == 0 ? 0 : errno;
}
