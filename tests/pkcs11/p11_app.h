/* What the programs that drive a PKCS#11 module as an application share
 * (tests/pkcs11/p11_stress.c, bench/p11_speed.c; p11_module_test.c takes
 * the scratch folder alone, as it checks each call itself): a scratch
 * folder for gostx's tokens, the module loaded and initialised, a failed
 * call that ends the program, a fresh token with its user PIN. The includer
 * defines P11_APP (its name, for the messages) first. */
#ifndef GOSTX_P11_APP_H
#define GOSTX_P11_APP_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pkcs11/cryptoki.h"

/* gostx's token folder (GOSTX_PKCS11_DIR) made from the template dir
 * ("...XXXXXX", rewritten), with a short PIN KDF: these programs log in
 * often (docs/PKCS11.md). 0, or -1 when the folder cannot be made. */
static inline int p11_scratch(char *dir) {
  if (!mkdtemp(dir)) return -1;
  setenv("GOSTX_PKCS11_DIR", dir, 1);
  setenv("GOSTX_PKCS11_KDF_ITER", "2000", 1);
  return 0;
}

/* rv not CKR_OK: the program ends (1), naming what failed. */
static inline void p11_must(CK_RV rv, const char *what) {
  if (rv != CKR_OK) {
    fprintf(stderr, P11_APP ": %s: 0x%lx\n", what, (unsigned long)rv);
    exit(1);
  }
}

/* The module at path, C_Initialize'd with ia (NULL: no threads): its
 * function list. */
static inline CK_FUNCTION_LIST *p11_load(const char *path, CK_C_INITIALIZE_ARGS *ia) {
  void *lib = dlopen(path, RTLD_NOW);
  CK_C_GetFunctionList gfl = NULL;
  CK_FUNCTION_LIST *f = NULL;
  if (lib) /* POSIX's way to take a function from dlsym without an ISO C cast */
    *(void **)&gfl = dlsym(lib, "C_GetFunctionList");
  if (!gfl) {
    fprintf(stderr, P11_APP ": %s\n", dlerror());
    exit(1);
  }
  p11_must(gfl(&f), "C_GetFunctionList");
  p11_must(f->C_Initialize(ia), "C_Initialize");
  return f;
}

/* A new token labelled label in the module's first slot (SO PIN
 * "so-pin-0"), its user PIN set: an open read-write session on it, no one
 * logged in. The token is looked up again by its label after C_InitToken:
 * SoftHSM moves an initialised token to a new slot ID. */
static inline CK_SESSION_HANDLE p11_token_init(CK_FUNCTION_LIST *f, const char *label, const char *pin) {
  CK_SLOT_ID slots[64];
  CK_ULONG n = 64;
  CK_UTF8CHAR lab[32];
  memset(lab, ' ', sizeof lab);
  memcpy(lab, label, strlen(label));
  p11_must(f->C_GetSlotList(CK_TRUE, slots, &n), "C_GetSlotList");
  if (!n) p11_must(CKR_SLOT_ID_INVALID, "a slot");
  p11_must(f->C_InitToken(slots[0], (CK_UTF8CHAR *)"so-pin-0", 8, lab), "C_InitToken");
  n = 64;
  p11_must(f->C_GetSlotList(CK_TRUE, slots, &n), "C_GetSlotList");
  CK_TOKEN_INFO ti;
  CK_ULONG i = 0;
  while (i < n && (f->C_GetTokenInfo(slots[i], &ti) != CKR_OK ||
                   !(ti.flags & CKF_TOKEN_INITIALIZED) || memcmp(ti.label, lab, 32)))
    i++;
  if (i == n) p11_must(CKR_TOKEN_NOT_PRESENT, "the token just initialised");
  CK_SESSION_HANDLE s;
  p11_must(f->C_OpenSession(slots[i], CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, &s),
           "C_OpenSession");
  p11_must(f->C_Login(s, CKU_SO, (CK_UTF8CHAR *)"so-pin-0", 8), "C_Login SO");
  p11_must(f->C_InitPIN(s, (CK_UTF8CHAR *)pin, strlen(pin)), "C_InitPIN");
  p11_must(f->C_Logout(s), "C_Logout");
  return s;
}

#endif
