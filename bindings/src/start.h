/*
 * Starting the embedded interpreter, included once into the cffi-generated module (it calls
 * cffi's static cffi_start_python, so it must live in that translation unit). Every exported
 * function that needs the graph calls rdx__start() first (see the wrappers that
 * build_capi.py generates).
 *
 * Why not let cffi start Python: it calls Py_InitializeEx(0), which configures the
 * interpreter from the host's environment and the base installation, so it would import
 * _cffi_backend from whatever the base interpreter has installed (or fail to find it) instead
 * of the virtualenv that built this library. Here the interpreter is started as that
 * virtualenv's Python (program_name is its executable, so pyvenv.cfg puts its site-packages on
 * the path) in isolated mode: the host's PYTHONPATH, PYTHONHOME and signal handlers are left
 * alone. cffi then finds Python initialized and only attaches to it. A failure becomes
 * RDX_ERR_INTERNAL with a message, never a silent RDX_OK (cffi's own behaviour).
 *
 * RDX_PYTHON_PROGRAM (the building interpreter's executable) is defined by the build.
 */
#ifndef RDX_START_H
#define RDX_START_H

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "runtime.h"

static pthread_once_t rdx__python_once = PTHREAD_ONCE_INIT;
static char rdx__python_error[512];
static int rdx__started;

static void rdx__start_python(void) {
    if (Py_IsInitialized()) {
        return; /* The host runs Python already: use its interpreter as it is. */
    }
    PyConfig config;
    PyConfig_InitIsolatedConfig(&config);
    PyStatus status = PyConfig_SetBytesString(&config, &config.program_name, RDX_PYTHON_PROGRAM);
    if (!PyStatus_Exception(status)) {
        status = Py_InitializeFromConfig(&config);
    }
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status)) {
        snprintf(rdx__python_error, sizeof rdx__python_error,
                 "librdx could not start its embedded Python %s (%s%s%s); rebuild it with `make capi`",
                 RDX_PYTHON_PROGRAM, status.func ? status.func : "", status.func ? ": " : "",
                 status.err_msg ? status.err_msg : "unknown error");
        return;
    }
    /* Leave the interpreter as cffi leaves it after starting it: the GIL released. */
    PyEval_SaveThread();
}

/* 0 when the interpreter and the Python half are up; -1 (with the thread's last error set)
 * when they cannot be. */
static int rdx__start(void) {
    if (__atomic_load_n(&rdx__started, __ATOMIC_ACQUIRE)) {
        return 0;
    }
    pthread_once(&rdx__python_once, rdx__start_python);
    if (rdx__python_error[0] != '\0') {
        rdx__set_last_error(rdx__python_error, strlen(rdx__python_error));
        return -1;
    }
    if (cffi_start_python() != 0) {
        static const char message[] =
            "librdx could not start cffi's embedding in its Python (the details are on stderr); rebuild it with `make capi`";
        rdx__set_last_error(message, sizeof message - 1);
        return -1;
    }
    __atomic_store_n(&rdx__started, 1, __ATOMIC_RELEASE);
    return 0;
}

#endif /* RDX_START_H */
