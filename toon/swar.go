package toon

// SWAR: 8 bytes of a string tested at a time in a uint64. (x-ones)&^x&highs
// has the high bit of every byte of x that is zero (and maybe of a byte
// after one), so x^(ones*c) finds the bytes equal to c.
const (
	swarOnes  = 0x0101010101010101
	swarHighs = 0x8080808080808080
)
