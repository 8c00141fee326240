// A kernel that tries to leave the simulator's sandbox. It first computes y = 2 * x through
// the API, then does what `mode` says: write, delete or create files, start processes, use
// the network, end the process early or signal its process group. Paths come from the
// environment (ASC_SANDBOX_FILE), the port from a scalar argument.
#include "kernel_operator.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

extern "C" __global__ __aicore__ void escape(GM_ADDR x, GM_ADDR y, uint32_t n, int32_t mode, int32_t port)
{
    AscendC::GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(x), n);
    yGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(y), n);
    for (uint32_t i = 0; i < n; i++) {
        yGm.SetValue(i, 2.0f * xGm.GetValue(i));
    }
    const char *path = std::getenv("ASC_SANDBOX_FILE");
    if (mode == 1) {  // write a file outside the job folder
        FILE *f = std::fopen(path, "w");
        if (f != nullptr) {
            std::fputs("escaped\n", f);
            std::fclose(f);
        }
    } else if (mode == 2) {  // delete a file
        unlink(path);
    } else if (mode == 3) {  // a shell command
        int rc = std::system("echo escaped > \"$ASC_SANDBOX_FILE\"");
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
            addr.sin_port = htons(static_cast<uint16_t>(port));
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
        execl("/bin/sh", "sh", "-c", "echo escaped > \"$ASC_SANDBOX_FILE\"", static_cast<char *>(nullptr));
    }
}
