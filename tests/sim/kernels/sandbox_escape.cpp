// A kernel that tries to leave the simulator's sandbox. It first computes y = 2 * x through
// the API, then does what `mode` says: write, delete, create or read files, start processes,
// use the network, end the process early, signal its process group, act on another process
// (`arg`: its pid, or a port), make shared memory, print without end, read its environment or
// write its own result. The path is SANDBOX_FILE (#defined by the test before this file).
#include "kernel_operator.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifndef SANDBOX_FILE
#define SANDBOX_FILE "/nonexistent/sandbox-file"
#endif
extern char **environ;

// Writes `line` to every descriptor the harness may hold open (its report among them).
static void write_to_open_files(const char *line)
{
    for (int fd = 3; fd < 16; fd++) {
        ssize_t w = write(fd, line, std::strlen(line));
        (void)w;
    }
}

extern "C" __global__ __aicore__ void escape(GM_ADDR x, GM_ADDR y, uint32_t n, int32_t mode, int32_t arg)
{
    AscendC::GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(x), n);
    yGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(y), n);
    for (uint32_t i = 0; i < n; i++) {
        yGm.SetValue(i, 2.0f * xGm.GetValue(i));
    }
    const char *path = SANDBOX_FILE;
    if (mode == 1) {  // write a file outside the job folder
        FILE *f = std::fopen(path, "w");
        if (f != nullptr) {
            std::fputs("escaped\n", f);
            std::fclose(f);
        }
    } else if (mode == 2) {  // delete a file
        unlink(path);
    } else if (mode == 3) {  // a shell command
        int rc = std::system("echo escaped > " SANDBOX_FILE);
        (void)rc;
    } else if (mode == 4) {  // fork: the child writes the file
        pid_t pid = fork();
        if (pid == 0) {
            FILE *f = std::fopen(path, "w");
            if (f != nullptr) std::fclose(f);
            _exit(0);
        }
        if (pid > 0) waitpid(pid, nullptr, 0);
    } else if (mode == 5) {  // connect to a port on this machine
        int s = socket(AF_INET, SOCK_STREAM, 0);
        if (s >= 0) {
            sockaddr_in addr{};
            addr.sin_family = AF_INET;
            addr.sin_port = htons(static_cast<uint16_t>(arg));
            addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            int rc = connect(s, reinterpret_cast<sockaddr *>(&addr), sizeof addr);
            (void)rc;
            close(s);
        }
    } else if (mode == 6) {
        std::exit(0);
    } else if (mode == 7) {
        _exit(0);
    } else if (mode == 8) {
        std::quick_exit(0);
    } else if (mode == 9) {  // signal the process group
        kill(0, SIGTERM);
        sleep(5);
    } else if (mode == 10) {  // signal itself
        raise(SIGTERM);
    } else if (mode == 11) {  // replace the process
        execl("/bin/sh", "sh", "-c", "echo escaped > " SANDBOX_FILE, static_cast<char *>(nullptr));
    } else if (mode == 12) {  // kill another process: SIGKILL to it when our stdout is written
        fcntl(1, F_SETOWN, arg);
        fcntl(1, F_SETSIG, SIGKILL);
        fcntl(1, F_SETFL, O_ASYNC);
        std::printf("x\n");
    } else if (mode == 13) {  // renice another process
        setpriority(PRIO_PROCESS, arg, 19);
    } else if (mode == 14) {  // pin another process to one CPU
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(0, &one);
        sched_setaffinity(arg, sizeof one, &one);
    } else if (mode == 15) {  // read another process's memory
        char mem[64];
        std::snprintf(mem, sizeof mem, "/proc/%d/mem", arg);
        int fd = open(mem, O_RDONLY);
        if (fd >= 0) close(fd);
    } else if (mode == 16) {  // a shared-memory segment that outlives the run
        shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
    } else if (mode == 17) {  // a message queue that outlives the run
        msgget(IPC_PRIVATE, IPC_CREAT | 0600);
    } else if (mode == 18) {  // memory past the limit through a memfd
        int fd = static_cast<int>(syscall(SYS_memfd_create, "big", 0));
        if (fd >= 0) {
            int rc = ftruncate(fd, 1ll << 34);
            (void)rc;
        }
    } else if (mode == 19) {  // print without end (256 MiB)
        static char block[1 << 16];
        std::memset(block, 'p', sizeof block);
        for (int i = 0; i < 4096; i++) std::fwrite(block, 1, sizeof block, stdout);
    } else if (mode == 20) {  // read a file
        FILE *f = std::fopen(path, "r");
        if (f != nullptr) {
            char buf[64] = {};
            size_t got = std::fread(buf, 1, sizeof buf - 1, f);
            (void)got;
            std::fclose(f);
            yGm.SetValue(0, static_cast<float>(buf[0]));
        }
    } else if (mode == 21) {  // read the environment: y[0] = the number of variables
        int count = 0;
        for (char **e = environ; e != nullptr && *e != nullptr; e++) count++;
        yGm.SetValue(0, static_cast<float>(count));
    } else if (mode == 22) {  // clear append mode on the report to overwrite its lines
        for (int fd = 3; fd < 16; fd++) fcntl(fd, F_SETFL, 0);
    } else if (mode == 23) {  // claim the run ended well, then leave
        write_to_open_files("E\tok\n");
        _exit(0);
    } else if (mode == 24) {  // claim a fast run: a cost line for block 0
        write_to_open_files("K\t0\t1.0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n");
    } else if (mode == 25) {  // rewrite the report through a shared mapping
        for (int fd = 3; fd < 16; fd++) mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    } else if (mode == 26) {  // truncate the report
        for (int fd = 3; fd < 16; fd++) {
            int rc = ftruncate(fd, 0);
            (void)rc;
        }
    }
}
