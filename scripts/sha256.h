/* sha256.h -- SHA-256 (FIPS 180-4), so the weave machine needs no sha256sum. */
#ifndef SHA256_H
#define SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t len;          /* bytes hashed so far */
	unsigned char buf[64];
	size_t nbuf;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, unsigned char digest[32]);
/* hex: 65 bytes, lower-case hex digits and a NUL. */
void sha256_hex(const unsigned char digest[32], char hex[65]);
/* Hashes a whole file into hex; returns 0, or -1 with errno set. */
int sha256_file(const char *path, char hex[65]);

#endif
