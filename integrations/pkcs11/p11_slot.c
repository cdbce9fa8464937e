/* Slots and tokens (p11.h): one slot per token folder under the base
 * folder, plus one free slot where C_InitToken makes a new token (as
 * SoftHSMv2 does); C_GetSlotList picks up tokens other processes made.
 * The PIN functions: C_InitToken, C_InitPIN, C_SetPIN. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "p11.h"

static struct {
  p11_slot *s;
  size_t n; /* the last is the free slot */
  char base[4096];
} g_slots;

CK_RV p11_gone(p11_token *t, CK_RV rv) {
  if (rv != CKR_TOKEN_NOT_PRESENT)
    return rv;
  t->removed = 1;
  return CKR_DEVICE_REMOVED;
}

/* The folder's identity: a folder moved away, or another put in its place,
 * is not the token the sessions were opened on. */
static int dir_id(const char *dir, uint64_t id[2]) {
  struct stat st;
  if (stat(dir, &st) != 0)
    return -1;
  id[0] = (uint64_t)st.st_dev, id[1] = (uint64_t)st.st_ino;
  return 0;
}

int p11_token_moved(p11_token *t) {
  struct timespec ts;
  if (t->removed || clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return t->removed;
  uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec, id[2];
  if (t->looked_ns && now - t->looked_ns < P11_LOOK_NS)
    return 0;
  t->looked_ns = now;
  if (dir_id(t->dir, id) != 0 || id[0] != t->dir_id[0] || id[1] != t->dir_id[1])
    t->removed = 1;
  return t->removed;
}

p11_slot *p11_slot_get(CK_SLOT_ID id) { return id < g_slots.n ? &g_slots.s[id] : NULL; }

static int is_serial(const char *s) {
  if (strlen(s) != 16)
    return 0;
  for (int i = 0; i < 16; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
      return 0;
  return 1;
}

static int cmp_str(const void *a, const void *b) { return strcmp(a, b); }

/* A token for serial in the slot before the free one. */
static CK_RV slot_add(const char *serial) {
  p11_token *t = calloc(1, sizeof *t);
  p11_slot *s = realloc(g_slots.s, (g_slots.n + 1) * sizeof *s);
  if (!t || !s) {
    free(t);
    if (s)
      g_slots.s = s;
    return CKR_HOST_MEMORY;
  }
  g_slots.s = s;
  memcpy(t->serial, serial, 17);
  int len = snprintf(t->dir, sizeof t->dir, "%s/%.16s", g_slots.base, serial);
  if (len < 0 || (size_t)len >= sizeof t->dir || dir_id(t->dir, t->dir_id) != 0 ||
      p11_token_refresh(t) != CKR_OK) {
    /* no token.meta: not a token */
    free(t);
    return CKR_OK;
  }
  /* The token takes the free slot; a new free slot follows it. */
  s[g_slots.n - 1].tok = t;
  s[g_slots.n].id = g_slots.n;
  s[g_slots.n].tok = NULL;
  g_slots.n++;
  return CKR_OK;
}

CK_RV p11_slots_scan(void) {
  if (!g_slots.s) {
    CK_RV rv = p11_base_dir(g_slots.base, sizeof g_slots.base);
    if (rv != CKR_OK)
      return rv;
    g_slots.s = calloc(1, sizeof *g_slots.s);
    if (!g_slots.s)
      return CKR_HOST_MEMORY;
    g_slots.n = 1;
  }
  DIR *d = opendir(g_slots.base);
  if (!d)
    return CKR_OK; /* no tokens yet: C_InitToken makes the folder */
  char(*found)[17] = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  CK_RV rv = CKR_OK;
  while ((e = readdir(d)) != NULL) {
    if (!is_serial(e->d_name))
      continue;
    int known = 0;
    for (size_t i = 0; i + 1 < g_slots.n && !known; i++)
      known = strcmp(g_slots.s[i].tok->serial, e->d_name) == 0;
    if (known)
      continue;
    if (n == cap) {
      void *p = realloc(found, (cap ? 2 * cap : 8) * sizeof *found);
      if (!p) {
        rv = CKR_HOST_MEMORY;
        break;
      }
      found = p, cap = cap ? 2 * cap : 8;
    }
    memcpy(found[n++], e->d_name, 17);
  }
  closedir(d);
  if (n)
    qsort(found, n, sizeof *found, cmp_str);
  for (size_t i = 0; i < n && rv == CKR_OK; i++)
    rv = slot_add(found[i]);
  free(found);
  return rv;
}

void p11_slots_free(void) {
  for (size_t i = 0; i < g_slots.n; i++) {
    if (g_slots.s[i].tok) {
      gostx_memzero(g_slots.s[i].tok->mk, P11_MK_LEN);
      free(g_slots.s[i].tok);
    }
  }
  free(g_slots.s);
  memset(&g_slots, 0, sizeof g_slots);
}

p11_slot *p11_slot_begin(CK_SLOT_ID id, int args_ok, CK_RV *rv) {
  if ((*rv = p11_enter()) != CKR_OK)
    return NULL;
  p11_slot *s = p11_slot_get(id);
  if (!s || !args_ok) {
    *rv = p11_leave(s ? CKR_ARGUMENTS_BAD : CKR_SLOT_ID_INVALID);
    return NULL;
  }
  return s;
}

CK_RV C_GetSlotList(CK_BBOOL tokenPresent, CK_SLOT_ID_PTR pSlotList, CK_ULONG_PTR pulCount) {
  CK_RV rv = p11_enter();
  if (rv != CKR_OK)
    return rv;
  if (!pulCount)
    return p11_leave(CKR_ARGUMENTS_BAD);
  /* Only the size query rescans, so a list fetched in two calls stays
   * the same length between them. */
  if (!pSlotList && (rv = p11_slots_scan()) != CKR_OK)
    return p11_leave(rv);
  /* Every slot holds a token: the free one an uninitialised token. */
  (void)tokenPresent;
  CK_ULONG n = (CK_ULONG)g_slots.n;
  if (pSlotList) {
    if (*pulCount < n) {
      *pulCount = n;
      return p11_leave(CKR_BUFFER_TOO_SMALL);
    }
    for (CK_ULONG i = 0; i < n; i++)
      pSlotList[i] = g_slots.s[i].id;
  }
  *pulCount = n;
  return p11_leave(CKR_OK);
}

CK_RV C_GetSlotInfo(CK_SLOT_ID slotID, CK_SLOT_INFO_PTR pInfo) {
  CK_RV rv;
  p11_slot *s = p11_slot_begin(slotID, pInfo != NULL, &rv);
  if (!s)
    return rv;
  memset(pInfo, 0, sizeof *pInfo);
  p11_pad(pInfo->slotDescription, sizeof pInfo->slotDescription,
          s->tok ? "gostx software token" : "gostx free slot (C_InitToken)");
  p11_pad(pInfo->manufacturerID, sizeof pInfo->manufacturerID, "gostx");
  pInfo->flags = s->tok && p11_token_moved(s->tok) ? 0 : CKF_TOKEN_PRESENT;
  pInfo->hardwareVersion.major = GOSTX_VERSION_MAJOR;
  pInfo->hardwareVersion.minor = GOSTX_VERSION_MINOR;
  pInfo->firmwareVersion = pInfo->hardwareVersion;
  return p11_leave(CKR_OK);
}

/* The PIN flags of a counter. */
static CK_FLAGS pin_flags(unsigned fails, CK_FLAGS low, CK_FLAGS final, CK_FLAGS locked) {
  if (fails >= P11_MAX_PIN_TRIES)
    return locked;
  if (fails + 1 == P11_MAX_PIN_TRIES)
    return low | final;
  return fails ? low : 0;
}

CK_RV C_GetTokenInfo(CK_SLOT_ID slotID, CK_TOKEN_INFO_PTR pInfo) {
  CK_RV rv;
  p11_slot *s = p11_slot_begin(slotID, pInfo != NULL, &rv);
  if (!s)
    return rv;
  p11_token *t = s->tok;
  if (t && (rv = p11_token_refresh(t)) != CKR_OK) {
    if (rv == CKR_TOKEN_NOT_PRESENT)
      t->removed = 1;
    return p11_leave(rv);
  }
  memset(pInfo, 0, sizeof *pInfo);
  memset(pInfo->label, ' ', sizeof pInfo->label);
  if (t)
    memcpy(pInfo->label, t->label, sizeof pInfo->label);
  p11_pad(pInfo->manufacturerID, sizeof pInfo->manufacturerID, "gostx");
  p11_pad(pInfo->model, sizeof pInfo->model, "GOST soft token");
  p11_pad(pInfo->serialNumber, sizeof pInfo->serialNumber, t ? t->serial : "");
  pInfo->flags = CKF_RNG | CKF_LOGIN_REQUIRED;
  if (t) {
    pInfo->flags |= CKF_TOKEN_INITIALIZED;
    if (t->user_pin_set)
      pInfo->flags |= CKF_USER_PIN_INITIALIZED;
    pInfo->flags |= pin_flags(t->user_fails, CKF_USER_PIN_COUNT_LOW, CKF_USER_PIN_FINAL_TRY,
                              CKF_USER_PIN_LOCKED);
    pInfo->flags |= pin_flags(t->so_fails, CKF_SO_PIN_COUNT_LOW, CKF_SO_PIN_FINAL_TRY,
                              CKF_SO_PIN_LOCKED);
    p11_session_count(t, &pInfo->ulSessionCount, &pInfo->ulRwSessionCount);
  }
  pInfo->ulMaxSessionCount = CK_EFFECTIVELY_INFINITE;
  pInfo->ulMaxRwSessionCount = CK_EFFECTIVELY_INFINITE;
  pInfo->ulMaxPinLen = P11_MAX_PIN;
  pInfo->ulMinPinLen = P11_MIN_PIN;
  pInfo->ulTotalPublicMemory = CK_UNAVAILABLE_INFORMATION;
  pInfo->ulFreePublicMemory = CK_UNAVAILABLE_INFORMATION;
  pInfo->ulTotalPrivateMemory = CK_UNAVAILABLE_INFORMATION;
  pInfo->ulFreePrivateMemory = CK_UNAVAILABLE_INFORMATION;
  pInfo->hardwareVersion.major = GOSTX_VERSION_MAJOR;
  pInfo->hardwareVersion.minor = GOSTX_VERSION_MINOR;
  pInfo->firmwareVersion = pInfo->hardwareVersion;
  memset(pInfo->utcTime, ' ', sizeof pInfo->utcTime);
  return p11_leave(CKR_OK);
}

CK_RV C_GetMechanismList(CK_SLOT_ID slotID, CK_MECHANISM_TYPE_PTR pMechanismList,
                         CK_ULONG_PTR pulCount) {
  CK_RV rv;
  if (!p11_slot_begin(slotID, pulCount != NULL, &rv))
    return rv;
  return p11_leave(p11_mech_list(pMechanismList, pulCount));
}

CK_RV C_GetMechanismInfo(CK_SLOT_ID slotID, CK_MECHANISM_TYPE type, CK_MECHANISM_INFO_PTR pInfo) {
  CK_RV rv;
  if (!p11_slot_begin(slotID, pInfo != NULL, &rv))
    return rv;
  return p11_leave(p11_mech_info(type, pInfo));
}

static CK_RV pin_len_ok(const void *pin, CK_ULONG len) {
  if (!pin)
    return CKR_ARGUMENTS_BAD;
  return len < P11_MIN_PIN || len > P11_MAX_PIN ? CKR_PIN_LEN_RANGE : CKR_OK;
}

CK_RV C_InitToken(CK_SLOT_ID slotID, CK_UTF8CHAR_PTR pPin, CK_ULONG ulPinLen,
                  CK_UTF8CHAR_PTR pLabel) {
  CK_RV rv;
  p11_slot *s = p11_slot_begin(slotID, pLabel != NULL, &rv);
  if (!s)
    return rv;
  if ((rv = pin_len_ok(pPin, ulPinLen)) != CKR_OK)
    return p11_leave(rv);
  char label[32];
  memcpy(label, pLabel, 32);
  if (!s->tok) {
    char serial[17];
    rv = p11_token_create(g_slots.base, label, pPin, ulPinLen, serial);
    if (rv == CKR_OK)
      rv = slot_add(serial);
    return p11_leave(rv);
  }
  p11_token *t = s->tok;
  if (p11_token_has_sessions(t))
    return p11_leave(CKR_SESSION_EXISTS);
  /* Re-initialising needs the SO PIN; it wipes every object. */
  uint8_t mk[P11_MK_LEN];
  rv = p11_pin_check(t->dir, 0, pPin, ulPinLen, mk);
  gostx_memzero(mk, sizeof mk);
  if (rv == CKR_OK)
    rv = p11_token_reinit(t, label, pPin, ulPinLen);
  if (rv == CKR_OK) {
    p11_objs_drop_private(t);
    t->user_in = t->so_in = 0;
    gostx_memzero(t->mk, P11_MK_LEN);
    p11_objs_sync(t);
    rv = p11_token_refresh(t);
  }
  return p11_leave(rv);
}

CK_RV C_InitPIN(CK_SESSION_HANDLE hSession, CK_UTF8CHAR_PTR pPin, CK_ULONG ulPinLen) {
  CK_RV rv;
  p11_session *s = p11_begin(hSession, &rv);
  if (!s)
    return rv;
  if (!s->tok->so_in)
    return p11_leave(CKR_USER_NOT_LOGGED_IN);
  if (!(s->flags & CKF_RW_SESSION))
    return p11_leave(CKR_SESSION_READ_ONLY);
  if ((rv = pin_len_ok(pPin, ulPinLen)) != CKR_OK)
    return p11_leave(rv);
  rv = p11_pin_set(s->tok->dir, 1, pPin, ulPinLen, s->tok->mk);
  if (rv == CKR_OK)
    rv = p11_token_refresh(s->tok);
  return p11_leave(rv);
}

CK_RV C_SetPIN(CK_SESSION_HANDLE hSession, CK_UTF8CHAR_PTR pOldPin, CK_ULONG ulOldLen,
               CK_UTF8CHAR_PTR pNewPin, CK_ULONG ulNewLen) {
  CK_RV rv;
  p11_session *s = p11_begin(hSession, &rv);
  if (!s)
    return rv;
  if (!(s->flags & CKF_RW_SESSION))
    return p11_leave(CKR_SESSION_READ_ONLY);
  if (!pOldPin)
    return p11_leave(CKR_ARGUMENTS_BAD);
  if ((rv = pin_len_ok(pNewPin, ulNewLen)) != CKR_OK)
    return p11_leave(rv);
  int user = !s->tok->so_in; /* the SO's own PIN when the SO is in */
  uint8_t mk[P11_MK_LEN];
  rv = p11_pin_check(s->tok->dir, user, pOldPin, ulOldLen, mk);
  if (rv == CKR_OK)
    rv = p11_pin_set(s->tok->dir, user, pNewPin, ulNewLen, mk);
  gostx_memzero(mk, sizeof mk);
  p11_token_refresh(s->tok);
  return p11_leave(rv);
}
