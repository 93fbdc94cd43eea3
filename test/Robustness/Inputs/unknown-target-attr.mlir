// A #octet.target naming a chip octet does not know.
module attributes {octet.target = #octet.target<"sm_91">} {
}
