#ifndef SANDBOX_VERSION
#define SANDBOX_VERSION "0.1.0"
#endif
