/* The module's face (p11.h): the function lists built from cryptoki.h's
 * table, C_Initialize / C_Finalize / C_GetInfo, the 3.0 interfaces, and
 * the module lock (pthread, or the application's mutex callbacks when it
 * gives them without CKF_OS_LOCKING_OK). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "p11.h"

static pthread_mutex_t g_state = PTHREAD_MUTEX_INITIALIZER; /* guards the fields below */
static pthread_mutex_t g_os_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  int init;
  pid_t pid;
  CK_C_INITIALIZE_ARGS app; /* the application's callbacks, when used */
  void *app_mutex;
} g;

void p11_lock(void) {
  if (g.app_mutex)
    g.app.LockMutex(g.app_mutex);
  else
    pthread_mutex_lock(&g_os_lock);
}

void p11_unlock(void) {
  if (g.app_mutex)
    g.app.UnlockMutex(g.app_mutex);
  else
    pthread_mutex_unlock(&g_os_lock);
}

int p11_initialized(void) { return g.init && g.pid == getpid(); }

CK_RV p11_enter(void) {
  p11_lock();
  if (!p11_initialized()) {
    p11_unlock();
    return CKR_CRYPTOKI_NOT_INITIALIZED;
  }
  return CKR_OK;
}

CK_RV p11_leave(CK_RV rv) {
  p11_unlock();
  return rv;
}

void p11_pad(CK_UTF8CHAR *dst, size_t cap, const char *src) {
  size_t n = strlen(src);
  memset(dst, ' ', cap);
  memcpy(dst, src, n < cap ? n : cap);
}

CK_RV C_Initialize(CK_VOID_PTR pInitArgs) {
  CK_C_INITIALIZE_ARGS a = {0};
  if (pInitArgs)
    a = *(CK_C_INITIALIZE_ARGS *)pInitArgs;
  if (a.pReserved)
    return CKR_ARGUMENTS_BAD;
  int fns = !!a.CreateMutex + !!a.DestroyMutex + !!a.LockMutex + !!a.UnlockMutex;
  if (fns != 0 && fns != 4)
    return CKR_ARGUMENTS_BAD;
  pthread_mutex_lock(&g_state);
  if (g.init && g.pid == getpid()) {
    pthread_mutex_unlock(&g_state);
    return CKR_CRYPTOKI_ALREADY_INITIALIZED;
  }
  /* A child of fork starts afresh: the parent's tables stay the parent's
   * (and leak here, as the standard leaves them undefined). */
  memset(&g, 0, sizeof g);
  if (fns == 4 && !(a.flags & CKF_OS_LOCKING_OK)) {
    /* The application's locking is the only one it allows. */
    g.app = a;
    if (a.CreateMutex(&g.app_mutex) != CKR_OK || !g.app_mutex) {
      memset(&g, 0, sizeof g);
      pthread_mutex_unlock(&g_state);
      return CKR_CANT_LOCK;
    }
  }
  p11_lock();
  g.init = 1;
  g.pid = getpid();
  CK_RV rv = p11_slots_scan();
  if (rv != CKR_OK)
    g.init = 0;
  p11_unlock();
  if (rv != CKR_OK && g.app_mutex) {
    g.app.DestroyMutex(g.app_mutex);
    g.app_mutex = NULL;
  }
  pthread_mutex_unlock(&g_state);
  return rv;
}

CK_RV C_Finalize(CK_VOID_PTR pReserved) {
  if (pReserved)
    return CKR_ARGUMENTS_BAD;
  pthread_mutex_lock(&g_state);
  CK_RV rv = p11_enter();
  if (rv != CKR_OK) {
    pthread_mutex_unlock(&g_state);
    return rv;
  }
  p11_sessions_free();
  p11_objs_free();
  p11_slots_free();
  g.init = 0;
  void *m = g.app_mutex;
  p11_unlock();
  if (m)
    g.app.DestroyMutex(m);
  memset(&g, 0, sizeof g);
  pthread_mutex_unlock(&g_state);
  return CKR_OK;
}

CK_RV C_GetInfo(CK_INFO_PTR pInfo) {
  CK_RV rv = p11_enter();
  if (rv != CKR_OK)
    return rv;
  if (!pInfo)
    return p11_leave(CKR_ARGUMENTS_BAD);
  memset(pInfo, 0, sizeof *pInfo);
  pInfo->cryptokiVersion.major = 3;
  pInfo->cryptokiVersion.minor = 0;
  p11_pad(pInfo->manufacturerID, sizeof pInfo->manufacturerID, "gostx");
  p11_pad(pInfo->libraryDescription, sizeof pInfo->libraryDescription, "gostx GOST software token");
  pInfo->libraryVersion.major = GOSTX_VERSION_MAJOR;
  pInfo->libraryVersion.minor = GOSTX_VERSION_MINOR;
  return p11_leave(CKR_OK);
}

#define P11_ENTRY(name, args) name,
static CK_FUNCTION_LIST g_list_2_40 = {{2, 40}, GOSTX_CK_FUNCTIONS_2_40(P11_ENTRY)};
static CK_FUNCTION_LIST_3_0 g_list_3_0 = {
    {3, 0}, GOSTX_CK_FUNCTIONS_2_40(P11_ENTRY) GOSTX_CK_FUNCTIONS_3_0(P11_ENTRY)};
#undef P11_ENTRY

static CK_INTERFACE g_ifaces[] = {
    {(CK_CHAR *)"PKCS 11", &g_list_3_0, 0},
    {(CK_CHAR *)"PKCS 11", &g_list_2_40, 0},
};
enum { N_IFACES = sizeof g_ifaces / sizeof g_ifaces[0] };

CK_RV C_GetFunctionList(CK_FUNCTION_LIST **ppFunctionList) {
  if (!ppFunctionList)
    return CKR_ARGUMENTS_BAD;
  *ppFunctionList = &g_list_2_40;
  return CKR_OK;
}

CK_RV C_GetInterfaceList(CK_INTERFACE_PTR pInterfacesList, CK_ULONG_PTR pulCount) {
  if (!pulCount)
    return CKR_ARGUMENTS_BAD;
  if (!pInterfacesList) {
    *pulCount = N_IFACES;
    return CKR_OK;
  }
  if (*pulCount < N_IFACES) {
    *pulCount = N_IFACES;
    return CKR_BUFFER_TOO_SMALL;
  }
  memcpy(pInterfacesList, g_ifaces, sizeof g_ifaces);
  *pulCount = N_IFACES;
  return CKR_OK;
}

CK_RV C_GetInterface(CK_UTF8CHAR_PTR pInterfaceName, CK_VERSION_PTR pVersion,
                     CK_INTERFACE_PTR_PTR ppInterface, CK_FLAGS flags) {
  if (!ppInterface)
    return CKR_ARGUMENTS_BAD;
  if (pInterfaceName && strcmp((const char *)pInterfaceName, "PKCS 11") != 0)
    return CKR_ARGUMENTS_BAD;
  for (size_t i = 0; i < N_IFACES; i++) {
    const CK_VERSION *v = g_ifaces[i].pFunctionList;
    if (pVersion && (v->major != pVersion->major || v->minor != pVersion->minor))
      continue;
    if ((g_ifaces[i].flags & flags) != flags)
      continue;
    *ppInterface = &g_ifaces[i];
    return CKR_OK;
  }
  return CKR_ARGUMENTS_BAD;
}
