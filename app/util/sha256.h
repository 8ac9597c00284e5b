/* sha256.h: SHA-256 (FIPS 180-4) for hashing session and API tokens before they are stored. */
#ifndef ASKQL_SHA256_H
#define ASKQL_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t len;          /* bytes hashed so far */
	unsigned char buf[64];
	size_t nbuf;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t n);
/* sha256_final: write the 32-byte digest to out; s must be re-initialised to be reused. */
void sha256_final(struct sha256 *s, unsigned char out[32]);
/* sha256_hex: digest of data as 64 lowercase hex digits + NUL into hex[65]. */
void sha256_hex(const void *data, size_t n, char hex[65]);

#endif
