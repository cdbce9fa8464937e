/* Sessions and login (p11.h). Login is per token per process, shared by
 * all of its sessions as the standard says; closing the last session on a
 * token logs out. The PIN's PBKDF2 runs without the module lock. */
#include <stdlib.h>
#include <string.h>

#include "p11.h"

static struct {
  p11_session **s; /* by handle - 1; NULL once closed; handles are not reused */
  size_t n;
} g_sess;

p11_session *p11_session_get(CK_SESSION_HANDLE h, CK_RV *rv) {
  if (h == 0 || h > g_sess.n || !g_sess.s[h - 1]) {
    *rv = CKR_SESSION_HANDLE_INVALID;
    return NULL;
  }
  p11_session *s = g_sess.s[h - 1];
  /* Every call on a session asks whether the folder is still there
   * (p11_token_moved), so that a token taken away is refused within
   * P11_LOOK_NS rather than at the next search or login. */
  if (p11_token_moved(s->tok)) {
    *rv = CKR_DEVICE_REMOVED;
    return NULL;
  }
  return s;
}

p11_session *p11_begin(CK_SESSION_HANDLE h, CK_RV *rv) {
  if ((*rv = p11_enter()) != CKR_OK)
    return NULL;
  p11_session *s = p11_session_get(h, rv);
  if (!s)
    p11_unlock();
  return s;
}

p11_session *p11_begin_args(CK_SESSION_HANDLE h, int args_ok, CK_RV *rv) {
  p11_session *s = p11_begin(h, rv);
  if (s && !args_ok) {
    *rv = p11_leave(CKR_ARGUMENTS_BAD);
    return NULL;
  }
  return s;
}

void p11_op_clear(p11_op *op) { gostx_memzero(op, sizeof *op); }

static void session_free(p11_session *s) {
  p11_objs_drop_session(s->h);
  p11_op_clear(&s->sign);
  p11_op_clear(&s->verify);
  p11_op_clear(&s->digest);
  p11_cop_clear(&s->enc);
  p11_cop_clear(&s->dec);
  free(s->found);
  free(s);
}

void p11_sessions_free(void) {
  for (size_t i = 0; i < g_sess.n; i++)
    if (g_sess.s[i])
      session_free(g_sess.s[i]);
  free(g_sess.s);
  memset(&g_sess, 0, sizeof g_sess);
}

void p11_session_count(const p11_token *t, CK_ULONG *all, CK_ULONG *rw) {
  *all = *rw = 0;
  for (size_t i = 0; i < g_sess.n; i++) {
    if (g_sess.s[i] && g_sess.s[i]->tok == t) {
      ++*all;
      if (g_sess.s[i]->flags & CKF_RW_SESSION)
        ++*rw;
    }
  }
}

int p11_token_has_sessions(const p11_token *t) {
  CK_ULONG all, rw;
  p11_session_count(t, &all, &rw);
  return all != 0;
}

static void logout(p11_token *t) {
  p11_objs_drop_private(t);
  t->user_in = t->so_in = 0;
  gostx_memzero(t->mk, P11_MK_LEN);
}

CK_RV C_OpenSession(CK_SLOT_ID slotID, CK_FLAGS flags, CK_VOID_PTR pApplication, CK_NOTIFY Notify,
                    CK_SESSION_HANDLE_PTR phSession) {
  (void)pApplication, (void)Notify; /* no callbacks: nothing here is slow enough to warrant them */
  CK_RV rv;
  p11_slot *sl = p11_slot_begin(slotID, phSession != NULL, &rv);
  if (!sl)
    return rv;
  if (!(flags & CKF_SERIAL_SESSION))
    return p11_leave(CKR_SESSION_PARALLEL_NOT_SUPPORTED);
  if (!sl->tok)
    return p11_leave(CKR_TOKEN_NOT_RECOGNIZED);
  if (p11_token_moved(sl->tok))
    return p11_leave(CKR_TOKEN_NOT_PRESENT);
  if (sl->tok->so_in && !(flags & CKF_RW_SESSION))
    return p11_leave(CKR_SESSION_READ_WRITE_SO_EXISTS);
  p11_session *s = calloc(1, sizeof *s);
  p11_session **arr = realloc(g_sess.s, (g_sess.n + 1) * sizeof *arr);
  if (!s || !arr) {
    free(s);
    if (arr)
      g_sess.s = arr;
    return p11_leave(CKR_HOST_MEMORY);
  }
  g_sess.s = arr;
  s->h = (CK_SESSION_HANDLE)(g_sess.n + 1);
  s->slot = slotID;
  s->tok = sl->tok;
  s->flags = flags & (CKF_RW_SESSION | CKF_SERIAL_SESSION);
  g_sess.s[g_sess.n++] = s;
  *phSession = s->h;
  return p11_leave(CKR_OK);
}

static void close_one(p11_session *s) {
  p11_token *t = s->tok;
  g_sess.s[s->h - 1] = NULL;
  session_free(s);
  if (!p11_token_has_sessions(t))
    logout(t);
}

CK_RV C_CloseSession(CK_SESSION_HANDLE hSession) {
  CK_RV rv = p11_enter();
  if (rv != CKR_OK)
    return rv;
  if (hSession == 0 || hSession > g_sess.n || !g_sess.s[hSession - 1])
    return p11_leave(CKR_SESSION_HANDLE_INVALID);
  close_one(g_sess.s[hSession - 1]);
  return p11_leave(CKR_OK);
}

CK_RV C_CloseAllSessions(CK_SLOT_ID slotID) {
  CK_RV rv;
  if (!p11_slot_begin(slotID, 1, &rv))
    return rv;
  for (size_t i = 0; i < g_sess.n; i++)
    if (g_sess.s[i] && g_sess.s[i]->slot == slotID)
      close_one(g_sess.s[i]);
  return p11_leave(CKR_OK);
}

CK_RV C_GetSessionInfo(CK_SESSION_HANDLE hSession, CK_SESSION_INFO_PTR pInfo) {
  CK_RV rv;
  p11_session *s = p11_begin_args(hSession, pInfo != NULL, &rv);
  if (!s)
    return rv;
  int rw = (s->flags & CKF_RW_SESSION) != 0;
  pInfo->slotID = s->slot;
  pInfo->flags = s->flags;
  pInfo->ulDeviceError = 0;
  if (s->tok->so_in)
    pInfo->state = CKS_RW_SO_FUNCTIONS;
  else if (s->tok->user_in)
    pInfo->state = rw ? CKS_RW_USER_FUNCTIONS : CKS_RO_USER_FUNCTIONS;
  else
    pInfo->state = rw ? CKS_RW_PUBLIC_SESSION : CKS_RO_PUBLIC_SESSION;
  return p11_leave(CKR_OK);
}

CK_RV C_Login(CK_SESSION_HANDLE hSession, CK_USER_TYPE userType, CK_UTF8CHAR_PTR pPin,
              CK_ULONG ulPinLen) {
  CK_RV rv;
  p11_session *s = p11_begin(hSession, &rv);
  if (!s)
    return rv;
  if (userType != CKU_SO && userType != CKU_USER)
    return p11_leave(userType == CKU_CONTEXT_SPECIFIC ? CKR_OPERATION_NOT_INITIALIZED
                                                      : CKR_USER_TYPE_INVALID);
  if (!pPin)
    return p11_leave(CKR_ARGUMENTS_BAD);
  p11_token *t = s->tok;
  int user = userType == CKU_USER;
  if ((user && t->user_in) || (!user && t->so_in))
    return p11_leave(CKR_USER_ALREADY_LOGGED_IN);
  if (t->user_in || t->so_in)
    return p11_leave(CKR_USER_ANOTHER_ALREADY_LOGGED_IN);
  if (!user) {
    for (size_t i = 0; i < g_sess.n; i++)
      if (g_sess.s[i] && g_sess.s[i]->tok == t && !(g_sess.s[i]->flags & CKF_RW_SESSION))
        return p11_leave(CKR_SESSION_READ_ONLY_EXISTS);
  }
  if (ulPinLen > P11_MAX_PIN)
    return p11_leave(CKR_PIN_INCORRECT);
  /* The KDF runs unlocked, on a copy of the folder's name. */
  char dir[sizeof t->dir];
  memcpy(dir, t->dir, sizeof dir);
  p11_unlock();
  uint8_t mk[P11_MK_LEN];
  CK_RV check = p11_pin_check(dir, user, pPin, ulPinLen, mk);
  /* The session may have closed meanwhile (t with it), or another thread
   * logged in: looked up again under the lock. */
  if (!(s = p11_begin(hSession, &rv))) {
    gostx_memzero(mk, sizeof mk);
    return rv;
  }
  t = s->tok;
  if (check != CKR_OK) {
    gostx_memzero(mk, sizeof mk);
    p11_token_refresh(t); /* the wrong-PIN count it now has */
    return p11_leave(p11_gone(t, check));
  }
  if (t->user_in || t->so_in) {
    gostx_memzero(mk, sizeof mk);
    return p11_leave(t->user_in == user ? CKR_USER_ALREADY_LOGGED_IN
                                        : CKR_USER_ANOTHER_ALREADY_LOGGED_IN);
  }
  memcpy(t->mk, mk, P11_MK_LEN);
  gostx_memzero(mk, sizeof mk);
  if (user)
    t->user_in = 1;
  else
    t->so_in = 1;
  p11_token_refresh(t);
  if (user && (rv = p11_objs_sync(t)) != CKR_OK) {
    logout(t);
    return p11_leave(rv);
  }
  return p11_leave(CKR_OK);
}

CK_RV C_LoginUser(CK_SESSION_HANDLE hSession, CK_USER_TYPE userType, CK_UTF8CHAR_PTR pPin,
                  CK_ULONG ulPinLen, CK_UTF8CHAR_PTR pUsername, CK_ULONG ulUsernameLen) {
  (void)pUsername, (void)ulUsernameLen; /* one user per token: the name is not used */
  return C_Login(hSession, userType, pPin, ulPinLen);
}

CK_RV C_Logout(CK_SESSION_HANDLE hSession) {
  CK_RV rv;
  p11_session *s = p11_begin(hSession, &rv);
  if (!s)
    return rv;
  if (!s->tok->user_in && !s->tok->so_in)
    return p11_leave(CKR_USER_NOT_LOGGED_IN);
  logout(s->tok);
  return p11_leave(CKR_OK);
}
