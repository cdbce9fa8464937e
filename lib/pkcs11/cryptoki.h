/* gostx: the PKCS#11 (Cryptoki) 3.0 interface, written for gostx from the
 * OASIS PKCS#11 3.0 base and current-mechanisms specifications and TC 26's
 * GOST extension (the vendor range NSSCK_VENDOR_PKCS11_RU_TEAM, as Rutoken
 * and JaCarta modules use it). Names and values are the standard's; the
 * layout is the Unix one (natural alignment, CK_ULONG = unsigned long).
 *
 * Internal: shared by the PKCS#11 consumer in lib/pkcs11 and the gostx
 * software token in integrations/pkcs11. It holds what those two use, not
 * the whole standard: a constant missing here is one gostx has no use for
 * yet. Not installed, so it cannot clash with an application's pkcs11.h. */
#ifndef GOSTX_PKCS11_CRYPTOKI_H
#define GOSTX_PKCS11_CRYPTOKI_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- base types ---- */
typedef unsigned char CK_BYTE;
typedef CK_BYTE CK_CHAR;
typedef CK_BYTE CK_UTF8CHAR;
typedef CK_BYTE CK_BBOOL;
typedef unsigned long CK_ULONG;
typedef long CK_LONG;
typedef CK_ULONG CK_FLAGS;
typedef CK_BYTE *CK_BYTE_PTR;
typedef CK_CHAR *CK_CHAR_PTR;
typedef CK_UTF8CHAR *CK_UTF8CHAR_PTR;
typedef CK_ULONG *CK_ULONG_PTR;
typedef void *CK_VOID_PTR;
typedef CK_VOID_PTR *CK_VOID_PTR_PTR;

#define CK_TRUE 1
#define CK_FALSE 0
#define CK_UNAVAILABLE_INFORMATION (~0UL)
#define CK_EFFECTIVELY_INFINITE 0UL
#define CK_INVALID_HANDLE 0UL

typedef struct CK_VERSION {
  CK_BYTE major;
  CK_BYTE minor;
} CK_VERSION;
typedef CK_VERSION *CK_VERSION_PTR;

typedef struct CK_INFO {
  CK_VERSION cryptokiVersion;
  CK_UTF8CHAR manufacturerID[32];
  CK_FLAGS flags;
  CK_UTF8CHAR libraryDescription[32];
  CK_VERSION libraryVersion;
} CK_INFO;
typedef CK_INFO *CK_INFO_PTR;

typedef CK_ULONG CK_NOTIFICATION;
typedef CK_ULONG CK_SLOT_ID;
typedef CK_SLOT_ID *CK_SLOT_ID_PTR;

typedef struct CK_SLOT_INFO {
  CK_UTF8CHAR slotDescription[64];
  CK_UTF8CHAR manufacturerID[32];
  CK_FLAGS flags;
  CK_VERSION hardwareVersion;
  CK_VERSION firmwareVersion;
} CK_SLOT_INFO;
typedef CK_SLOT_INFO *CK_SLOT_INFO_PTR;

#define CKF_TOKEN_PRESENT 0x00000001UL
#define CKF_REMOVABLE_DEVICE 0x00000002UL
#define CKF_HW_SLOT 0x00000004UL

typedef struct CK_TOKEN_INFO {
  CK_UTF8CHAR label[32];
  CK_UTF8CHAR manufacturerID[32];
  CK_UTF8CHAR model[16];
  CK_CHAR serialNumber[16];
  CK_FLAGS flags;
  CK_ULONG ulMaxSessionCount;
  CK_ULONG ulSessionCount;
  CK_ULONG ulMaxRwSessionCount;
  CK_ULONG ulRwSessionCount;
  CK_ULONG ulMaxPinLen;
  CK_ULONG ulMinPinLen;
  CK_ULONG ulTotalPublicMemory;
  CK_ULONG ulFreePublicMemory;
  CK_ULONG ulTotalPrivateMemory;
  CK_ULONG ulFreePrivateMemory;
  CK_VERSION hardwareVersion;
  CK_VERSION firmwareVersion;
  CK_CHAR utcTime[16];
} CK_TOKEN_INFO;
typedef CK_TOKEN_INFO *CK_TOKEN_INFO_PTR;

#define CKF_RNG 0x00000001UL
#define CKF_WRITE_PROTECTED 0x00000002UL
#define CKF_LOGIN_REQUIRED 0x00000004UL
#define CKF_USER_PIN_INITIALIZED 0x00000008UL
#define CKF_RESTORE_KEY_NOT_NEEDED 0x00000020UL
#define CKF_CLOCK_ON_TOKEN 0x00000040UL
#define CKF_PROTECTED_AUTHENTICATION_PATH 0x00000100UL
#define CKF_DUAL_CRYPTO_OPERATIONS 0x00000200UL
#define CKF_TOKEN_INITIALIZED 0x00000400UL
#define CKF_SECONDARY_AUTHENTICATION 0x00000800UL
#define CKF_USER_PIN_COUNT_LOW 0x00010000UL
#define CKF_USER_PIN_FINAL_TRY 0x00020000UL
#define CKF_USER_PIN_LOCKED 0x00040000UL
#define CKF_USER_PIN_TO_BE_CHANGED 0x00080000UL
#define CKF_SO_PIN_COUNT_LOW 0x00100000UL
#define CKF_SO_PIN_FINAL_TRY 0x00200000UL
#define CKF_SO_PIN_LOCKED 0x00400000UL
#define CKF_SO_PIN_TO_BE_CHANGED 0x00800000UL
#define CKF_ERROR_STATE 0x01000000UL

typedef CK_ULONG CK_SESSION_HANDLE;
typedef CK_SESSION_HANDLE *CK_SESSION_HANDLE_PTR;
typedef CK_ULONG CK_USER_TYPE;
#define CKU_SO 0UL
#define CKU_USER 1UL
#define CKU_CONTEXT_SPECIFIC 2UL

typedef CK_ULONG CK_STATE;
#define CKS_RO_PUBLIC_SESSION 0UL
#define CKS_RO_USER_FUNCTIONS 1UL
#define CKS_RW_PUBLIC_SESSION 2UL
#define CKS_RW_USER_FUNCTIONS 3UL
#define CKS_RW_SO_FUNCTIONS 4UL

typedef struct CK_SESSION_INFO {
  CK_SLOT_ID slotID;
  CK_STATE state;
  CK_FLAGS flags;
  CK_ULONG ulDeviceError;
} CK_SESSION_INFO;
typedef CK_SESSION_INFO *CK_SESSION_INFO_PTR;

#define CKF_RW_SESSION 0x00000002UL
#define CKF_SERIAL_SESSION 0x00000004UL

typedef CK_ULONG CK_OBJECT_HANDLE;
typedef CK_OBJECT_HANDLE *CK_OBJECT_HANDLE_PTR;

typedef CK_ULONG CK_OBJECT_CLASS;
#define CKO_DATA 0x00000000UL
#define CKO_CERTIFICATE 0x00000001UL
#define CKO_PUBLIC_KEY 0x00000002UL
#define CKO_PRIVATE_KEY 0x00000003UL
#define CKO_SECRET_KEY 0x00000004UL
#define CKO_HW_FEATURE 0x00000005UL
#define CKO_DOMAIN_PARAMETERS 0x00000006UL
#define CKO_MECHANISM 0x00000007UL
#define CKO_PROFILE 0x00000009UL
#define CKO_VENDOR_DEFINED 0x80000000UL

typedef CK_ULONG CK_KEY_TYPE;
#define CKK_EC 0x00000003UL
#define CKK_GENERIC_SECRET 0x00000010UL
#define CKK_AES 0x0000001FUL
#define CKK_GOSTR3410 0x00000030UL
#define CKK_GOSTR3411 0x00000031UL
#define CKK_GOST28147 0x00000032UL
#define CKK_VENDOR_DEFINED 0x80000000UL

typedef CK_ULONG CK_CERTIFICATE_TYPE;
#define CKC_X_509 0x00000000UL
#define CKC_VENDOR_DEFINED 0x80000000UL
#define CK_CERTIFICATE_CATEGORY_UNSPECIFIED 0UL
#define CK_CERTIFICATE_CATEGORY_TOKEN_USER 1UL
#define CK_CERTIFICATE_CATEGORY_AUTHORITY 2UL
#define CK_CERTIFICATE_CATEGORY_OTHER_ENTITY 3UL

typedef CK_ULONG CK_ATTRIBUTE_TYPE;
#define CKF_ARRAY_ATTRIBUTE 0x40000000UL
#define CKA_CLASS 0x00000000UL
#define CKA_TOKEN 0x00000001UL
#define CKA_PRIVATE 0x00000002UL
#define CKA_LABEL 0x00000003UL
#define CKA_UNIQUE_ID 0x00000004UL
#define CKA_APPLICATION 0x00000010UL
#define CKA_VALUE 0x00000011UL
#define CKA_OBJECT_ID 0x00000012UL
#define CKA_CERTIFICATE_TYPE 0x00000080UL
#define CKA_ISSUER 0x00000081UL
#define CKA_SERIAL_NUMBER 0x00000082UL
#define CKA_TRUSTED 0x00000086UL
#define CKA_CERTIFICATE_CATEGORY 0x00000087UL
#define CKA_CHECK_VALUE 0x00000090UL
#define CKA_KEY_TYPE 0x00000100UL
#define CKA_SUBJECT 0x00000101UL
#define CKA_ID 0x00000102UL
#define CKA_SENSITIVE 0x00000103UL
#define CKA_ENCRYPT 0x00000104UL
#define CKA_DECRYPT 0x00000105UL
#define CKA_WRAP 0x00000106UL
#define CKA_UNWRAP 0x00000107UL
#define CKA_SIGN 0x00000108UL
#define CKA_SIGN_RECOVER 0x00000109UL
#define CKA_VERIFY 0x0000010AUL
#define CKA_VERIFY_RECOVER 0x0000010BUL
#define CKA_DERIVE 0x0000010CUL
#define CKA_START_DATE 0x00000110UL
#define CKA_END_DATE 0x00000111UL
#define CKA_VALUE_LEN 0x00000161UL
#define CKA_EXTRACTABLE 0x00000162UL
#define CKA_LOCAL 0x00000163UL
#define CKA_NEVER_EXTRACTABLE 0x00000164UL
#define CKA_ALWAYS_SENSITIVE 0x00000165UL
#define CKA_KEY_GEN_MECHANISM 0x00000166UL
#define CKA_MODIFIABLE 0x00000170UL
#define CKA_COPYABLE 0x00000171UL
#define CKA_DESTROYABLE 0x00000172UL
#define CKA_EC_PARAMS 0x00000180UL
#define CKA_EC_POINT 0x00000181UL
#define CKA_ALWAYS_AUTHENTICATE 0x00000202UL
#define CKA_WRAP_WITH_TRUSTED 0x00000210UL
#define CKA_WRAP_TEMPLATE (CKF_ARRAY_ATTRIBUTE | 0x00000211UL)
#define CKA_UNWRAP_TEMPLATE (CKF_ARRAY_ATTRIBUTE | 0x00000212UL)
#define CKA_DERIVE_TEMPLATE (CKF_ARRAY_ATTRIBUTE | 0x00000213UL)
#define CKA_GOSTR3410_PARAMS 0x00000250UL /* DER OID of the curve's parameter set */
#define CKA_GOSTR3411_PARAMS 0x00000251UL /* DER OID of the hash */
#define CKA_GOST28147_PARAMS 0x00000252UL /* DER OID of the S-box */
#define CKA_ALLOWED_MECHANISMS (CKF_ARRAY_ATTRIBUTE | 0x00000600UL)
#define CKA_VENDOR_DEFINED 0x80000000UL

typedef struct CK_ATTRIBUTE {
  CK_ATTRIBUTE_TYPE type;
  CK_VOID_PTR pValue;
  CK_ULONG ulValueLen;
} CK_ATTRIBUTE;
typedef CK_ATTRIBUTE *CK_ATTRIBUTE_PTR;

typedef struct CK_DATE {
  CK_CHAR year[4];
  CK_CHAR month[2];
  CK_CHAR day[2];
} CK_DATE;

typedef CK_ULONG CK_MECHANISM_TYPE;
typedef CK_MECHANISM_TYPE *CK_MECHANISM_TYPE_PTR;
#define CKM_EC_KEY_PAIR_GEN 0x00001040UL
#define CKM_ECDSA 0x00001041UL
#define CKM_GOSTR3410_KEY_PAIR_GEN 0x00001200UL
#define CKM_GOSTR3410 0x00001201UL
#define CKM_GOSTR3410_WITH_GOSTR3411 0x00001202UL
#define CKM_GOSTR3410_KEY_WRAP 0x00001203UL
#define CKM_GOSTR3410_DERIVE 0x00001204UL
#define CKM_GOSTR3411 0x00001210UL
#define CKM_GOSTR3411_HMAC 0x00001211UL
#define CKM_GOST28147_KEY_GEN 0x00001220UL
#define CKM_GOST28147_ECB 0x00001221UL
#define CKM_GOST28147 0x00001222UL
#define CKM_GOST28147_MAC 0x00001223UL
#define CKM_GOST28147_KEY_WRAP 0x00001224UL
#define CKM_GENERIC_SECRET_KEY_GEN 0x00000350UL
#define CKM_PKCS5_PBKD2 0x000003B0UL
#define CKM_VENDOR_DEFINED 0x80000000UL

/* ---- TC 26's GOST extension: the vendor range "RU team" ----
 * The 2012 curves and hashes, Kuznyechik and Magma (GOST R 34.12-2015),
 * MGM, KExp15. 256-bit GOST R 34.10-2012 keys keep the standard's
 * CKK_GOSTR3410 and CKM_GOSTR3410 (the math is 2001's); the 512-bit ones
 * have their own key type and mechanisms. */
#define NSSCK_VENDOR_PKCS11_RU_TEAM 0xD4321000UL /* CKA_VENDOR_DEFINED | 0x54321000 */
#define CK_VENDOR_PKCS11_RU_TEAM_TC26 NSSCK_VENDOR_PKCS11_RU_TEAM
#define CKK_GOSTR3410_512 (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x003UL)
#define CKK_KUZNYECHIK (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x004UL)
#define CKK_MAGMA (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x005UL)
#define CKK_KUZNYECHIK_TWIN_KEY (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x006UL)
#define CKK_MAGMA_TWIN_KEY (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x007UL)
#define CKP_PKCS5_PBKD2_HMAC_GOSTR3411_2012_512 (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x003UL)
#define CKM_GOSTR3410_512_KEY_PAIR_GEN (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x005UL)
#define CKM_GOSTR3410_512 (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x006UL)
#define CKM_GOSTR3410_12_DERIVE (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x007UL)
#define CKM_GOSTR3410_WITH_GOSTR3411_12_256 (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x008UL)
#define CKM_GOSTR3410_WITH_GOSTR3411_12_512 (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x009UL)
#define CKM_GOSTR3410_PUBLIC_KEY_DERIVE (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x00AUL)
#define CKM_GOSTR3410_512_PUBLIC_KEY_DERIVE (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x00BUL)
#define CKM_GOSTR3411_12_256 (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x012UL)
#define CKM_GOSTR3411_12_512 (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x013UL)
#define CKM_GOSTR3411_12_256_HMAC (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x014UL)
#define CKM_GOSTR3411_12_512_HMAC (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x015UL)
#define CKM_TLS_GOST_PRF_2012_256 (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x016UL)
#define CKM_TLS_GOST_PRF_2012_512 (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x017UL)
/* GOST R 34.13-2015's CTR, CFB, OFB and CBC: TC 26's newer set (the
 * Kuznyechik and Magma numbers from 0x030 on) has no numbers for them. These
 * are the TC 26 range's earlier ones, as Aladdin's JaCarta PKCS#11 SDK header
 * publishes them (CKM_KUZNECHIK_CTR .. CKM_MAGMA_CBC, 0x01B-0x01E and
 * 0x020-0x023); no number of the newer set is among them. */
#define CKM_KUZNYECHIK_CTR (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x01BUL)
#define CKM_KUZNYECHIK_CFB (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x01CUL)
#define CKM_KUZNYECHIK_OFB (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x01DUL)
#define CKM_KUZNYECHIK_CBC (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x01EUL)
#define CKM_MAGMA_CTR (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x020UL)
#define CKM_MAGMA_CFB (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x021UL)
#define CKM_MAGMA_OFB (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x022UL)
#define CKM_MAGMA_CBC (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x023UL)
#define CKM_KDF_4357 (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x025UL)
#define CKM_KDF_GOSTR3411_2012_256 (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x026UL)
#define CKM_KDF_HMAC3411_2012_256 (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x028UL)
#define CKM_KDF_TREE_GOSTR3411_2012_256 (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x02AUL)
#define CKM_KUZNYECHIK_KEXP_15_WRAP (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x02BUL)
#define CKM_MAGMA_KEXP_15_WRAP (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x02CUL)
#define CKM_KUZNYECHIK_MGM (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x02DUL)
#define CKM_MAGMA_MGM (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x02EUL)
#define CKM_KUZNYECHIK_KEY_GEN (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x030UL)
#define CKM_KUZNYECHIK_ECB (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x031UL)
#define CKM_KUZNYECHIK_CTR_ACPKM (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x032UL)
#define CKM_KUZNYECHIK_MAC (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x033UL)
#define CKM_MAGMA_KEY_GEN (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x034UL)
#define CKM_MAGMA_ECB (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x035UL)
#define CKM_MAGMA_CTR_ACPKM (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x036UL)
#define CKM_MAGMA_MAC (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x037UL)
#define CKM_VKO_GOSTR3410_2012_512 (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x038UL)
#define CKM_GOST_KEG (CK_VENDOR_PKCS11_RU_TEAM_TC26 | 0x039UL)

/* The kdf field of CK_GOSTR3410_DERIVE_PARAMS. */
typedef CK_ULONG CK_EC_KDF_TYPE;
#define CKD_NULL 0x00000001UL
#define CKD_CPDIVERSIFY_KDF 0x00000009UL
#define CKD_KDF_4357 CKM_KDF_4357
#define CKD_KDF_GOSTR3411_2012_256 CKM_KDF_GOSTR3411_2012_256

typedef struct CK_MECHANISM {
  CK_MECHANISM_TYPE mechanism;
  CK_VOID_PTR pParameter;
  CK_ULONG ulParameterLen;
} CK_MECHANISM;
typedef CK_MECHANISM *CK_MECHANISM_PTR;

typedef struct CK_MECHANISM_INFO {
  CK_ULONG ulMinKeySize;
  CK_ULONG ulMaxKeySize;
  CK_FLAGS flags;
} CK_MECHANISM_INFO;
typedef CK_MECHANISM_INFO *CK_MECHANISM_INFO_PTR;

#define CKF_HW 0x00000001UL
#define CKF_MESSAGE_ENCRYPT 0x00000002UL
#define CKF_MESSAGE_DECRYPT 0x00000004UL
#define CKF_MESSAGE_SIGN 0x00000008UL
#define CKF_MESSAGE_VERIFY 0x00000010UL
#define CKF_MULTI_MESSAGE 0x00000020UL
#define CKF_ENCRYPT 0x00000100UL
#define CKF_DECRYPT 0x00000200UL
#define CKF_DIGEST 0x00000400UL
#define CKF_SIGN 0x00000800UL
#define CKF_SIGN_RECOVER 0x00001000UL
#define CKF_VERIFY 0x00002000UL
#define CKF_VERIFY_RECOVER 0x00004000UL
#define CKF_GENERATE 0x00008000UL
#define CKF_GENERATE_KEY_PAIR 0x00010000UL
#define CKF_WRAP 0x00020000UL
#define CKF_UNWRAP 0x00040000UL
#define CKF_DERIVE 0x00080000UL
#define CKF_EXTENSION 0x80000000UL

/* CKM_GOSTR3410_DERIVE / CKM_GOSTR3410_12_DERIVE / CKM_VKO_GOSTR3410_2012_512:
 * the peer's public key (x || y, each little-endian, as CKA_VALUE holds
 * it) and the UKM. */
typedef struct CK_GOSTR3410_DERIVE_PARAMS {
  CK_EC_KDF_TYPE kdf;
  CK_BYTE_PTR pPublicData;
  CK_ULONG ulPublicDataLen;
  CK_BYTE_PTR pUKM;
  CK_ULONG ulUKMLen;
} CK_GOSTR3410_DERIVE_PARAMS;
typedef CK_GOSTR3410_DERIVE_PARAMS *CK_GOSTR3410_DERIVE_PARAMS_PTR;

typedef struct CK_GOSTR3410_KEY_WRAP_PARAMS {
  CK_BYTE_PTR pWrapOID;
  CK_ULONG ulWrapOIDLen;
  CK_BYTE_PTR pUKM;
  CK_ULONG ulUKMLen;
  CK_OBJECT_HANDLE hKey;
} CK_GOSTR3410_KEY_WRAP_PARAMS;

/* PKCS#11 3.0 AEAD parameters, which MGM takes: the nonce, the additional
 * data, the tag length in bits. */
typedef CK_ULONG CK_GENERATOR_FUNCTION;
#define CKG_NO_GENERATE 0x00000000UL
typedef struct CK_GCM_PARAMS {
  CK_BYTE_PTR pIv;
  CK_ULONG ulIvLen;
  CK_ULONG ulIvBits;
  CK_BYTE_PTR pAAD;
  CK_ULONG ulAADLen;
  CK_ULONG ulTagBits;
} CK_GCM_PARAMS;

typedef CK_ULONG CK_RV;
#define CKR_OK 0x00000000UL
#define CKR_CANCEL 0x00000001UL
#define CKR_HOST_MEMORY 0x00000002UL
#define CKR_SLOT_ID_INVALID 0x00000003UL
#define CKR_GENERAL_ERROR 0x00000005UL
#define CKR_FUNCTION_FAILED 0x00000006UL
#define CKR_ARGUMENTS_BAD 0x00000007UL
#define CKR_NO_EVENT 0x00000008UL
#define CKR_NEED_TO_CREATE_THREADS 0x00000009UL
#define CKR_CANT_LOCK 0x0000000AUL
#define CKR_ATTRIBUTE_READ_ONLY 0x00000010UL
#define CKR_ATTRIBUTE_SENSITIVE 0x00000011UL
#define CKR_ATTRIBUTE_TYPE_INVALID 0x00000012UL
#define CKR_ATTRIBUTE_VALUE_INVALID 0x00000013UL
#define CKR_ACTION_PROHIBITED 0x0000001BUL
#define CKR_DATA_INVALID 0x00000020UL
#define CKR_DATA_LEN_RANGE 0x00000021UL
#define CKR_DEVICE_ERROR 0x00000030UL
#define CKR_DEVICE_MEMORY 0x00000031UL
#define CKR_DEVICE_REMOVED 0x00000032UL
#define CKR_ENCRYPTED_DATA_INVALID 0x00000040UL
#define CKR_ENCRYPTED_DATA_LEN_RANGE 0x00000041UL
#define CKR_AEAD_DECRYPT_FAILED 0x00000042UL
#define CKR_FUNCTION_CANCELED 0x00000050UL
#define CKR_FUNCTION_NOT_PARALLEL 0x00000051UL
#define CKR_FUNCTION_NOT_SUPPORTED 0x00000054UL
#define CKR_KEY_HANDLE_INVALID 0x00000060UL
#define CKR_KEY_SIZE_RANGE 0x00000062UL
#define CKR_KEY_TYPE_INCONSISTENT 0x00000063UL
#define CKR_KEY_NOT_NEEDED 0x00000064UL
#define CKR_KEY_CHANGED 0x00000065UL
#define CKR_KEY_NEEDED 0x00000066UL
#define CKR_KEY_INDIGESTIBLE 0x00000067UL
#define CKR_KEY_FUNCTION_NOT_PERMITTED 0x00000068UL
#define CKR_KEY_NOT_WRAPPABLE 0x00000069UL
#define CKR_KEY_UNEXTRACTABLE 0x0000006AUL
#define CKR_MECHANISM_INVALID 0x00000070UL
#define CKR_MECHANISM_PARAM_INVALID 0x00000071UL
#define CKR_OBJECT_HANDLE_INVALID 0x00000082UL
#define CKR_OPERATION_ACTIVE 0x00000090UL
#define CKR_OPERATION_NOT_INITIALIZED 0x00000091UL
#define CKR_PIN_INCORRECT 0x000000A0UL
#define CKR_PIN_INVALID 0x000000A1UL
#define CKR_PIN_LEN_RANGE 0x000000A2UL
#define CKR_PIN_EXPIRED 0x000000A3UL
#define CKR_PIN_LOCKED 0x000000A4UL
#define CKR_SESSION_CLOSED 0x000000B0UL
#define CKR_SESSION_COUNT 0x000000B1UL
#define CKR_SESSION_HANDLE_INVALID 0x000000B3UL
#define CKR_SESSION_PARALLEL_NOT_SUPPORTED 0x000000B4UL
#define CKR_SESSION_READ_ONLY 0x000000B5UL
#define CKR_SESSION_EXISTS 0x000000B6UL
#define CKR_SESSION_READ_ONLY_EXISTS 0x000000B7UL
#define CKR_SESSION_READ_WRITE_SO_EXISTS 0x000000B8UL
#define CKR_SIGNATURE_INVALID 0x000000C0UL
#define CKR_SIGNATURE_LEN_RANGE 0x000000C1UL
#define CKR_TEMPLATE_INCOMPLETE 0x000000D0UL
#define CKR_TEMPLATE_INCONSISTENT 0x000000D1UL
#define CKR_TOKEN_NOT_PRESENT 0x000000E0UL
#define CKR_TOKEN_NOT_RECOGNIZED 0x000000E1UL
#define CKR_TOKEN_WRITE_PROTECTED 0x000000E2UL
#define CKR_UNWRAPPING_KEY_HANDLE_INVALID 0x000000F0UL
#define CKR_UNWRAPPING_KEY_SIZE_RANGE 0x000000F1UL
#define CKR_UNWRAPPING_KEY_TYPE_INCONSISTENT 0x000000F2UL
#define CKR_USER_ALREADY_LOGGED_IN 0x00000100UL
#define CKR_USER_NOT_LOGGED_IN 0x00000101UL
#define CKR_USER_PIN_NOT_INITIALIZED 0x00000102UL
#define CKR_USER_TYPE_INVALID 0x00000103UL
#define CKR_USER_ANOTHER_ALREADY_LOGGED_IN 0x00000104UL
#define CKR_USER_TOO_MANY_TYPES 0x00000105UL
#define CKR_WRAPPED_KEY_INVALID 0x00000110UL
#define CKR_WRAPPED_KEY_LEN_RANGE 0x00000112UL
#define CKR_WRAPPING_KEY_HANDLE_INVALID 0x00000113UL
#define CKR_WRAPPING_KEY_SIZE_RANGE 0x00000114UL
#define CKR_WRAPPING_KEY_TYPE_INCONSISTENT 0x00000115UL
#define CKR_RANDOM_SEED_NOT_SUPPORTED 0x00000120UL
#define CKR_RANDOM_NO_RNG 0x00000121UL
#define CKR_DOMAIN_PARAMS_INVALID 0x00000130UL
#define CKR_CURVE_NOT_SUPPORTED 0x00000140UL
#define CKR_BUFFER_TOO_SMALL 0x00000150UL
#define CKR_SAVED_STATE_INVALID 0x00000160UL
#define CKR_INFORMATION_SENSITIVE 0x00000170UL
#define CKR_STATE_UNSAVEABLE 0x00000180UL
#define CKR_CRYPTOKI_NOT_INITIALIZED 0x00000190UL
#define CKR_CRYPTOKI_ALREADY_INITIALIZED 0x00000191UL
#define CKR_MUTEX_BAD 0x000001A0UL
#define CKR_MUTEX_NOT_LOCKED 0x000001A1UL
#define CKR_NEW_PIN_MODE 0x000001B0UL
#define CKR_NEXT_OTP 0x000001B1UL
#define CKR_EXCEEDED_MAX_ITERATIONS 0x000001B5UL
#define CKR_FIPS_SELF_TEST_FAILED 0x000001B6UL
#define CKR_LIBRARY_LOAD_FAILED 0x000001B7UL
#define CKR_PIN_TOO_WEAK 0x000001B8UL
#define CKR_PUBLIC_KEY_INVALID 0x000001B9UL
#define CKR_FUNCTION_REJECTED 0x00000200UL
#define CKR_TOKEN_RESOURCE_EXCEEDED 0x00000201UL
#define CKR_OPERATION_CANCEL_FAILED 0x00000202UL
#define CKR_VENDOR_DEFINED 0x80000000UL

/* ---- C_Initialize's arguments ---- */
typedef CK_RV (*CK_CREATEMUTEX)(CK_VOID_PTR_PTR ppMutex);
typedef CK_RV (*CK_DESTROYMUTEX)(CK_VOID_PTR pMutex);
typedef CK_RV (*CK_LOCKMUTEX)(CK_VOID_PTR pMutex);
typedef CK_RV (*CK_UNLOCKMUTEX)(CK_VOID_PTR pMutex);
typedef struct CK_C_INITIALIZE_ARGS {
  CK_CREATEMUTEX CreateMutex;
  CK_DESTROYMUTEX DestroyMutex;
  CK_LOCKMUTEX LockMutex;
  CK_UNLOCKMUTEX UnlockMutex;
  CK_FLAGS flags;
  CK_VOID_PTR pReserved;
} CK_C_INITIALIZE_ARGS;
typedef CK_C_INITIALIZE_ARGS *CK_C_INITIALIZE_ARGS_PTR;
#define CKF_LIBRARY_CANT_CREATE_OS_THREADS 0x00000001UL
#define CKF_OS_LOCKING_OK 0x00000002UL
#define CKF_DONT_BLOCK 1UL

typedef CK_RV (*CK_NOTIFY)(CK_SESSION_HANDLE hSession, CK_NOTIFICATION event,
                           CK_VOID_PTR pApplication);

/* ---- the function list ----
 * X(name, (arguments)) once per function, in the standard's order: the
 * order is the ABI of CK_FUNCTION_LIST (2.40's 68 functions) and of
 * CK_FUNCTION_LIST_3_0 (those, then 3.0's 24). A token defines the
 * functions from the same table, so a slip in one place cannot go
 * unnoticed in the other. */
#define GOSTX_CK_FUNCTIONS_2_40(X)                                                               \
  X(C_Initialize, (CK_VOID_PTR pInitArgs))                                                       \
  X(C_Finalize, (CK_VOID_PTR pReserved))                                                         \
  X(C_GetInfo, (CK_INFO_PTR pInfo))                                                              \
  X(C_GetFunctionList, (struct CK_FUNCTION_LIST * *ppFunctionList))                              \
  X(C_GetSlotList, (CK_BBOOL tokenPresent, CK_SLOT_ID_PTR pSlotList, CK_ULONG_PTR pulCount))     \
  X(C_GetSlotInfo, (CK_SLOT_ID slotID, CK_SLOT_INFO_PTR pInfo))                                  \
  X(C_GetTokenInfo, (CK_SLOT_ID slotID, CK_TOKEN_INFO_PTR pInfo))                                \
  X(C_GetMechanismList,                                                                          \
    (CK_SLOT_ID slotID, CK_MECHANISM_TYPE_PTR pMechanismList, CK_ULONG_PTR pulCount))            \
  X(C_GetMechanismInfo, (CK_SLOT_ID slotID, CK_MECHANISM_TYPE type, CK_MECHANISM_INFO_PTR pInfo)) \
  X(C_InitToken, (CK_SLOT_ID slotID, CK_UTF8CHAR_PTR pPin, CK_ULONG ulPinLen,                    \
                  CK_UTF8CHAR_PTR pLabel))                                                       \
  X(C_InitPIN, (CK_SESSION_HANDLE hSession, CK_UTF8CHAR_PTR pPin, CK_ULONG ulPinLen))            \
  X(C_SetPIN, (CK_SESSION_HANDLE hSession, CK_UTF8CHAR_PTR pOldPin, CK_ULONG ulOldLen,           \
               CK_UTF8CHAR_PTR pNewPin, CK_ULONG ulNewLen))                                      \
  X(C_OpenSession, (CK_SLOT_ID slotID, CK_FLAGS flags, CK_VOID_PTR pApplication,                 \
                    CK_NOTIFY Notify, CK_SESSION_HANDLE_PTR phSession))                          \
  X(C_CloseSession, (CK_SESSION_HANDLE hSession))                                                \
  X(C_CloseAllSessions, (CK_SLOT_ID slotID))                                                     \
  X(C_GetSessionInfo, (CK_SESSION_HANDLE hSession, CK_SESSION_INFO_PTR pInfo))                   \
  X(C_GetOperationState, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pOperationState,               \
                          CK_ULONG_PTR pulOperationStateLen))                                    \
  X(C_SetOperationState, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pOperationState,               \
                          CK_ULONG ulOperationStateLen, CK_OBJECT_HANDLE hEncryptionKey,         \
                          CK_OBJECT_HANDLE hAuthenticationKey))                                  \
  X(C_Login, (CK_SESSION_HANDLE hSession, CK_USER_TYPE userType, CK_UTF8CHAR_PTR pPin,           \
              CK_ULONG ulPinLen))                                                                \
  X(C_Logout, (CK_SESSION_HANDLE hSession))                                                      \
  X(C_CreateObject, (CK_SESSION_HANDLE hSession, CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount,   \
                     CK_OBJECT_HANDLE_PTR phObject))                                             \
  X(C_CopyObject, (CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject,                         \
                   CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount, CK_OBJECT_HANDLE_PTR phNewObject)) \
  X(C_DestroyObject, (CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject))                     \
  X(C_GetObjectSize, (CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject, CK_ULONG_PTR pulSize)) \
  X(C_GetAttributeValue, (CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject,                  \
                          CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount))                         \
  X(C_SetAttributeValue, (CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject,                  \
                          CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount))                         \
  X(C_FindObjectsInit, (CK_SESSION_HANDLE hSession, CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount)) \
  X(C_FindObjects, (CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE_PTR phObject,                   \
                    CK_ULONG ulMaxObjectCount, CK_ULONG_PTR pulObjectCount))                     \
  X(C_FindObjectsFinal, (CK_SESSION_HANDLE hSession))                                            \
  X(C_EncryptInit, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)) \
  X(C_Encrypt, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,               \
                CK_BYTE_PTR pEncryptedData, CK_ULONG_PTR pulEncryptedDataLen))                   \
  X(C_EncryptUpdate, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen,         \
                      CK_BYTE_PTR pEncryptedPart, CK_ULONG_PTR pulEncryptedPartLen))             \
  X(C_EncryptFinal, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pLastEncryptedPart,                 \
                     CK_ULONG_PTR pulLastEncryptedPartLen))                                      \
  X(C_DecryptInit, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)) \
  X(C_Decrypt, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pEncryptedData, CK_ULONG ulEncryptedDataLen, \
                CK_BYTE_PTR pData, CK_ULONG_PTR pulDataLen))                                     \
  X(C_DecryptUpdate, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pEncryptedPart,                    \
                      CK_ULONG ulEncryptedPartLen, CK_BYTE_PTR pPart, CK_ULONG_PTR pulPartLen))  \
  X(C_DecryptFinal, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pLastPart, CK_ULONG_PTR pulLastPartLen)) \
  X(C_DigestInit, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism))                     \
  X(C_Digest, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,                \
               CK_BYTE_PTR pDigest, CK_ULONG_PTR pulDigestLen))                                  \
  X(C_DigestUpdate, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen))         \
  X(C_DigestKey, (CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hKey))                            \
  X(C_DigestFinal, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pDigest, CK_ULONG_PTR pulDigestLen)) \
  X(C_SignInit, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)) \
  X(C_Sign, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,                  \
             CK_BYTE_PTR pSignature, CK_ULONG_PTR pulSignatureLen))                              \
  X(C_SignUpdate, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen))           \
  X(C_SignFinal, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pSignature, CK_ULONG_PTR pulSignatureLen)) \
  X(C_SignRecoverInit, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,                 \
                        CK_OBJECT_HANDLE hKey))                                                  \
  X(C_SignRecover, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,           \
                    CK_BYTE_PTR pSignature, CK_ULONG_PTR pulSignatureLen))                       \
  X(C_VerifyInit, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)) \
  X(C_Verify, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,                \
               CK_BYTE_PTR pSignature, CK_ULONG ulSignatureLen))                                 \
  X(C_VerifyUpdate, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen))         \
  X(C_VerifyFinal, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pSignature, CK_ULONG ulSignatureLen)) \
  X(C_VerifyRecoverInit, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,               \
                          CK_OBJECT_HANDLE hKey))                                                \
  X(C_VerifyRecover, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pSignature, CK_ULONG ulSignatureLen, \
                      CK_BYTE_PTR pData, CK_ULONG_PTR pulDataLen))                               \
  X(C_DigestEncryptUpdate, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen,   \
                            CK_BYTE_PTR pEncryptedPart, CK_ULONG_PTR pulEncryptedPartLen))       \
  X(C_DecryptDigestUpdate, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pEncryptedPart,              \
                            CK_ULONG ulEncryptedPartLen, CK_BYTE_PTR pPart, CK_ULONG_PTR pulPartLen)) \
  X(C_SignEncryptUpdate, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen,     \
                          CK_BYTE_PTR pEncryptedPart, CK_ULONG_PTR pulEncryptedPartLen))         \
  X(C_DecryptVerifyUpdate, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pEncryptedPart,              \
                            CK_ULONG ulEncryptedPartLen, CK_BYTE_PTR pPart, CK_ULONG_PTR pulPartLen)) \
  X(C_GenerateKey, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,                     \
                    CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount, CK_OBJECT_HANDLE_PTR phKey))   \
  X(C_GenerateKeyPair, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,                 \
                        CK_ATTRIBUTE_PTR pPublicKeyTemplate, CK_ULONG ulPublicKeyAttributeCount, \
                        CK_ATTRIBUTE_PTR pPrivateKeyTemplate, CK_ULONG ulPrivateKeyAttributeCount, \
                        CK_OBJECT_HANDLE_PTR phPublicKey, CK_OBJECT_HANDLE_PTR phPrivateKey))    \
  X(C_WrapKey, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,                         \
                CK_OBJECT_HANDLE hWrappingKey, CK_OBJECT_HANDLE hKey, CK_BYTE_PTR pWrappedKey,   \
                CK_ULONG_PTR pulWrappedKeyLen))                                                  \
  X(C_UnwrapKey, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,                       \
                  CK_OBJECT_HANDLE hUnwrappingKey, CK_BYTE_PTR pWrappedKey,                      \
                  CK_ULONG ulWrappedKeyLen, CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulAttributeCount, \
                  CK_OBJECT_HANDLE_PTR phKey))                                                   \
  X(C_DeriveKey, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,                       \
                  CK_OBJECT_HANDLE hBaseKey, CK_ATTRIBUTE_PTR pTemplate,                         \
                  CK_ULONG ulAttributeCount, CK_OBJECT_HANDLE_PTR phKey))                        \
  X(C_SeedRandom, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pSeed, CK_ULONG ulSeedLen))           \
  X(C_GenerateRandom, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR RandomData, CK_ULONG ulRandomLen)) \
  X(C_GetFunctionStatus, (CK_SESSION_HANDLE hSession))                                           \
  X(C_CancelFunction, (CK_SESSION_HANDLE hSession))                                              \
  X(C_WaitForSlotEvent, (CK_FLAGS flags, CK_SLOT_ID_PTR pSlot, CK_VOID_PTR pReserved))

typedef struct CK_INTERFACE {
  CK_CHAR *pInterfaceName; /* "PKCS 11" */
  CK_VOID_PTR pFunctionList;
  CK_FLAGS flags;
} CK_INTERFACE;
typedef CK_INTERFACE *CK_INTERFACE_PTR;
typedef CK_INTERFACE_PTR *CK_INTERFACE_PTR_PTR;
#define CKF_INTERFACE_FORK_SAFE 0x00000001UL

/* PKCS#11 3.0's additions, after the 2.40 functions. */
#define GOSTX_CK_FUNCTIONS_3_0(X)                                                                \
  X(C_GetInterfaceList, (CK_INTERFACE_PTR pInterfacesList, CK_ULONG_PTR pulCount))               \
  X(C_GetInterface, (CK_UTF8CHAR_PTR pInterfaceName, CK_VERSION_PTR pVersion,                    \
                     CK_INTERFACE_PTR_PTR ppInterface, CK_FLAGS flags))                          \
  X(C_LoginUser, (CK_SESSION_HANDLE hSession, CK_USER_TYPE userType, CK_UTF8CHAR_PTR pPin,       \
                  CK_ULONG ulPinLen, CK_UTF8CHAR_PTR pUsername, CK_ULONG ulUsernameLen))         \
  X(C_SessionCancel, (CK_SESSION_HANDLE hSession, CK_FLAGS flags))                               \
  X(C_MessageEncryptInit, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,              \
                           CK_OBJECT_HANDLE hKey))                                               \
  X(C_EncryptMessage, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen, \
                       CK_BYTE_PTR pAssociatedData, CK_ULONG ulAssociatedDataLen,                \
                       CK_BYTE_PTR pPlaintext, CK_ULONG ulPlaintextLen, CK_BYTE_PTR pCiphertext, \
                       CK_ULONG_PTR pulCiphertextLen))                                           \
  X(C_EncryptMessageBegin, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter,                  \
                            CK_ULONG ulParameterLen, CK_BYTE_PTR pAssociatedData,                \
                            CK_ULONG ulAssociatedDataLen))                                       \
  X(C_EncryptMessageNext, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter,                   \
                           CK_ULONG ulParameterLen, CK_BYTE_PTR pPlaintextPart,                  \
                           CK_ULONG ulPlaintextPartLen, CK_BYTE_PTR pCiphertextPart,             \
                           CK_ULONG_PTR pulCiphertextPartLen, CK_FLAGS flags))                   \
  X(C_MessageEncryptFinal, (CK_SESSION_HANDLE hSession))                                         \
  X(C_MessageDecryptInit, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,              \
                           CK_OBJECT_HANDLE hKey))                                               \
  X(C_DecryptMessage, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen, \
                       CK_BYTE_PTR pAssociatedData, CK_ULONG ulAssociatedDataLen,                \
                       CK_BYTE_PTR pCiphertext, CK_ULONG ulCiphertextLen, CK_BYTE_PTR pPlaintext, \
                       CK_ULONG_PTR pulPlaintextLen))                                            \
  X(C_DecryptMessageBegin, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter,                  \
                            CK_ULONG ulParameterLen, CK_BYTE_PTR pAssociatedData,                \
                            CK_ULONG ulAssociatedDataLen))                                       \
  X(C_DecryptMessageNext, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter,                   \
                           CK_ULONG ulParameterLen, CK_BYTE_PTR pCiphertextPart,                 \
                           CK_ULONG ulCiphertextPartLen, CK_BYTE_PTR pPlaintextPart,             \
                           CK_ULONG_PTR pulPlaintextPartLen, CK_FLAGS flags))                    \
  X(C_MessageDecryptFinal, (CK_SESSION_HANDLE hSession))                                         \
  X(C_MessageSignInit, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,                 \
                        CK_OBJECT_HANDLE hKey))                                                  \
  X(C_SignMessage, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen, \
                    CK_BYTE_PTR pData, CK_ULONG ulDataLen, CK_BYTE_PTR pSignature,               \
                    CK_ULONG_PTR pulSignatureLen))                                               \
  X(C_SignMessageBegin, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter,                     \
                         CK_ULONG ulParameterLen))                                               \
  X(C_SignMessageNext, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter,                      \
                        CK_ULONG ulParameterLen, CK_BYTE_PTR pData, CK_ULONG ulDataLen,          \
                        CK_BYTE_PTR pSignature, CK_ULONG_PTR pulSignatureLen))                   \
  X(C_MessageSignFinal, (CK_SESSION_HANDLE hSession))                                            \
  X(C_MessageVerifyInit, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,               \
                          CK_OBJECT_HANDLE hKey))                                                \
  X(C_VerifyMessage, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen, \
                      CK_BYTE_PTR pData, CK_ULONG ulDataLen, CK_BYTE_PTR pSignature,             \
                      CK_ULONG ulSignatureLen))                                                  \
  X(C_VerifyMessageBegin, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter,                   \
                           CK_ULONG ulParameterLen))                                             \
  X(C_VerifyMessageNext, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter,                    \
                          CK_ULONG ulParameterLen, CK_BYTE_PTR pData, CK_ULONG ulDataLen,        \
                          CK_BYTE_PTR pSignature, CK_ULONG ulSignatureLen))                      \
  X(C_MessageVerifyFinal, (CK_SESSION_HANDLE hSession))

struct CK_FUNCTION_LIST;
struct CK_FUNCTION_LIST_3_0;

#define GOSTX_CK_POINTER_TYPE(name, args) typedef CK_RV(*CK_##name) args;
GOSTX_CK_FUNCTIONS_2_40(GOSTX_CK_POINTER_TYPE)
GOSTX_CK_FUNCTIONS_3_0(GOSTX_CK_POINTER_TYPE)
#undef GOSTX_CK_POINTER_TYPE

#define GOSTX_CK_MEMBER(name, args) CK_##name name;
typedef struct CK_FUNCTION_LIST {
  CK_VERSION version;
  GOSTX_CK_FUNCTIONS_2_40(GOSTX_CK_MEMBER)
} CK_FUNCTION_LIST;
typedef struct CK_FUNCTION_LIST_3_0 {
  CK_VERSION version;
  GOSTX_CK_FUNCTIONS_2_40(GOSTX_CK_MEMBER)
  GOSTX_CK_FUNCTIONS_3_0(GOSTX_CK_MEMBER)
} CK_FUNCTION_LIST_3_0;
#undef GOSTX_CK_MEMBER
typedef CK_FUNCTION_LIST *CK_FUNCTION_LIST_PTR;
typedef CK_FUNCTION_LIST_PTR *CK_FUNCTION_LIST_PTR_PTR;
typedef CK_FUNCTION_LIST_3_0 *CK_FUNCTION_LIST_3_0_PTR;

#ifdef __cplusplus
}
#endif

#endif
