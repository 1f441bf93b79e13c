package cmd

import "github.com/spf13/cobra"

// InspectOptions are the options of `toonkit inspect`.
type InspectOptions struct{ IO *IOStreams }

func newInspectCmd(ios *IOStreams, runF func(*InspectOptions) error) *cobra.Command {
	return &cobra.Command{Use: "inspect", Hidden: true}
}
