package cmd

// encode --to binary -j N runs binary.EncodeStream on N workers: the input
// is cut into chunks at line ends, framed on the workers and written in
// input order; a chunk whose values do not all frame is read again by one
// worker, which writes the same frames and the same errors, at the same
// positions.

const (
	encodeChunk    = 256 << 10       // a chunk is cut at the first line end after this many bytes
	encodeChunkMax = 4 * encodeChunk // no line end by then: one worker takes over
)
